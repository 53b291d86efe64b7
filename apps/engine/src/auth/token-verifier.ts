// Checks one bearer token against one OIDC setting: signature from the issuer's keys, issuer,
// audience, an allow-list of public-key algorithms, expiry, then the optional email rules.
import type { TSsoConfig } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import { IssuerUnavailableError, type JwksResolver } from './jwks-resolver.js';

export type TokenVerifier = (token: string) => Promise<JWTPayload>;

const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Problem types of a 401: an expired token only needs refreshing, any other one will not do. Both are
 * `invalid_token` to RFC 6750; its error_description says which, for clients that read the header.
 */
export const TOKEN_PROBLEM_TYPES = { expired: 'token-expired', invalid: 'invalid-token' } as const;

export function createInvalidTokenError(
  description: string,
  type: keyof typeof TOKEN_PROBLEM_TYPES = 'invalid',
): AppError {
  // RFC 6750 forbids `"` and `\` inside error_description; the problem body keeps the exact wording.
  const quoted = description.replace(/["\\]/g, "'");
  return new AppError('unauthorized', description, {
    type: TOKEN_PROBLEM_TYPES[type],
    headers: { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${quoted}"` },
  });
}

function describeRejection(error: errors.JOSEError): string {
  if (error instanceof errors.JWTClaimValidationFailed) return `The token's "${error.claim}" claim is not accepted`;
  if (error instanceof errors.JOSEAlgNotAllowed) return 'The token is signed with an algorithm that is not allowed';
  if (error instanceof errors.JWKSNoMatchingKey) return 'The token is signed with a key the issuer does not publish';
  return 'The token could not be verified';
}

function toAuthError(error: unknown): AppError {
  // The keys could not be fetched: the caller is not at fault, so this is not a 401.
  const unavailable =
    error instanceof IssuerUnavailableError ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    !(error instanceof errors.JOSEError);
  if (unavailable) {
    return new AppError('service_unavailable', 'The OIDC issuer could not be reached to check the token.', {
      cause: error,
    });
  }
  if (error instanceof errors.JWTExpired) return createInvalidTokenError('The token has expired', 'expired');
  return createInvalidTokenError(describeRejection(error));
}

/**
 * Only when one of the lists is non-empty does the token need an email on it, and that email must be
 * verified (`email_verified: true`): an issuer that lets users type any address would otherwise let
 * anyone claim an allowed one. A token that does not say is refused too.
 */
function checkAllowedAccount(payload: JWTPayload, settings: TSsoConfig): void {
  const emails = settings.allowedEmails ?? [];
  const domains = settings.allowedDomains ?? [];
  if (emails.length === 0 && domains.length === 0) return;
  const email = typeof payload.email === 'string' && payload.email_verified === true ? payload.email.toLowerCase() : '';
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (email !== '' && (emails.includes(email) || domains.includes(domain))) return;
  throw new AppError(
    'forbidden',
    'This account is not allowed to use this agent (it needs an allowed, verified email).',
  );
}

export function createTokenVerifier(settings: TSsoConfig, resolver: JwksResolver): TokenVerifier {
  return async (token) => {
    let payload: JWTPayload;
    try {
      const keys = await resolver.keysFor(settings);
      ({ payload } = await jwtVerify(token, keys, {
        issuer: settings.issuer,
        audience: settings.audience,
        // The contract admits public-key algorithms only, so neither "none" nor an HS* secret can pass.
        algorithms: settings.algorithms,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw toAuthError(error);
    }
    checkAllowedAccount(payload, settings);
    return payload;
  };
}
