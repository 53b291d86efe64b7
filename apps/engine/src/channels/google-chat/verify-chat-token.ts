// Whether a delivery comes from Google Chat: each event carries `Authorization: Bearer <JWT>` signed by
// Google, checked here with jose against Google's published keys (never by hand). The token's shape
// follows the app's "Authentication Audience" setting:
// - a project number: a JWT self-signed by chat@system.gserviceaccount.com (issuer), audience = the
//   number, keys at that service account's JWK URL;
// - the endpoint URL: a Google OIDC ID token (issuer accounts.google.com, email
//   chat@system.gserviceaccount.com, verified), audience = the URL, keys at Google's OIDC key set.
// The token does not cover the body, so the audience is what ties it to this app; its expiry bounds a
// replay, and the queue's de-duplication by message name stops a replayed event from being answered twice.
import { AppError } from '@agentplane/server-kit';
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { CHAT_ISSUER, type GoogleChatSettings } from './google-chat-settings.js';

export type ChatTokenVerifier = (authorization: string | undefined, audience: string, now: number) => Promise<void>;

const GOOGLE_OIDC_ISSUERS = ['https://accounts.google.com', 'accounts.google.com'];
// Google's and our clocks may disagree a little; a token older than this past its expiry is refused.
const CLOCK_TOLERANCE_SECONDS = 30;

// What a forged, expired, foreign or malformed token makes jose throw; anything else (an unreachable or
// broken key set) is our side failing, not the caller's, and is a 503.
const REFUSED_TOKEN_CODES = new Set([
  errors.JWTExpired.code,
  errors.JWTClaimValidationFailed.code,
  errors.JWTInvalid.code,
  errors.JWSInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
]);

const refused = (detail: string) => new AppError('unauthorized', detail);

function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(authorization?.trim() ?? '');
  if (match?.[1] === undefined) throw refused('A Google Chat event must carry Authorization: Bearer <token>.');
  return match[1];
}

/** An audience that is a URL is the "HTTP endpoint URL" setting: Chat then sends Google ID tokens. */
const isEndpointUrl = (audience: string) => /^https?:\/\//i.test(audience);

function checkIdTokenSender(payload: JWTPayload): void {
  if (payload.email !== CHAT_ISSUER || payload.email_verified !== true) {
    throw refused(`The ID token was not issued to ${CHAT_ISSUER}.`);
  }
}

export function createChatTokenVerifier(settings: GoogleChatSettings): ChatTokenVerifier {
  const keySet = (url: string) =>
    createRemoteJWKSet(new URL(url), {
      timeoutDuration: settings.timeoutMs,
      cooldownDuration: 30_000,
      cacheMaxAge: 10 * 60 * 1000,
    });
  const chatKeys = keySet(settings.chatJwksUrl);
  const oidcKeys = keySet(settings.oidcJwksUrl);

  return async (authorization, audience, now) => {
    const token = bearerToken(authorization);
    const byUrl = isEndpointUrl(audience);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, byUrl ? oidcKeys : chatKeys, {
        issuer: byUrl ? GOOGLE_OIDC_ISSUERS : CHAT_ISSUER,
        audience,
        algorithms: ['RS256'],
        requiredClaims: ['exp'],
        currentDate: new Date(now),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      if (error instanceof errors.JOSEError && REFUSED_TOKEN_CODES.has(error.code)) {
        throw refused(`The Google Chat bearer token was refused: ${error.message}`);
      }
      throw new AppError('service_unavailable', "Google Chat's signing keys could not be read; try again.", {
        cause: error,
      });
    }
    if (byUrl) checkIdTokenSender(payload);
  };
}
