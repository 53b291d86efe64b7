// Checks the Bot Framework's bearer token on an inbound activity, the way the Bot Framework's own SDK
// does, with jose: signed (RS256) by a key of the Bot Framework's key set, issued by
// https://api.botframework.com, for this bot's Microsoft App ID, not expired (5 minutes of clock skew,
// the SDK's), and covering the activity it came with: the signing key endorses the activity's channel
// and the token's serviceurl claim is the activity's serviceUrl. A token minted for another bot, or
// replayed with an altered body naming another serviceUrl, is refused.
import { AppError } from '@agentplane/server-kit';
import { errors, jwtVerify } from 'jose';
import type { BotFrameworkKeys } from './bot-framework-keys.js';
import { BOT_FRAMEWORK_ISSUER } from './teams-settings.js';

const CLOCK_TOLERANCE_SECONDS = 300;

/** What a verified token says: which serviceUrl it was minted for and which channels its key speaks for. */
export type VerifiedBotToken = { serviceUrl: string | undefined; endorsements: string[] };

const refusal = (detail: string, cause?: unknown) =>
  new AppError('unauthorized', detail, { headers: { 'WWW-Authenticate': 'Bearer' }, cause });

// The key set could not be fetched: not the caller's fault, and the Bot Framework retries a 503.
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof errors.JOSEError)) return true;
  return (
    error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error.code === 'ERR_JOSE_GENERIC'
  );
}

function endorsementsOf(keys: { keys: Record<string, unknown>[] } | undefined, kid: string | undefined): string[] {
  const key = keys?.keys.find((candidate) => kid !== undefined && candidate.kid === kid);
  const endorsements = key?.endorsements;
  return Array.isArray(endorsements) ? endorsements.filter((value) => typeof value === 'string') : [];
}

export async function verifyBotToken(
  authorization: string | undefined,
  { appId, now, keys }: { appId: string; now: number; keys: BotFrameworkKeys },
): Promise<VerifiedBotToken> {
  const token = /^Bearer ([A-Za-z0-9_.-]+)$/.exec(authorization ?? '')?.[1];
  if (token === undefined) throw refusal('A Bot Framework bearer token is required.');
  try {
    const keySet = await keys.getKey();
    const { payload, protectedHeader } = await jwtVerify(token, keySet, {
      algorithms: ['RS256'],
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: appId,
      requiredClaims: ['exp'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(now),
    });
    return {
      serviceUrl: typeof payload.serviceurl === 'string' ? payload.serviceurl : undefined,
      endorsements: endorsementsOf(keySet.jwks(), protectedHeader.kid),
    };
  } catch (error) {
    if (isUnavailable(error)) {
      throw new AppError('service_unavailable', 'The Bot Framework signing keys cannot be fetched right now.', {
        headers: { 'Retry-After': '10' },
        cause: error,
      });
    }
    const expired = error instanceof errors.JWTExpired;
    throw refusal(expired ? 'The Bot Framework token has expired.' : 'The Bot Framework token is not valid.', error);
  }
}

/** The token speaks for this activity: its key endorses the channel, its serviceurl claim is the activity's. */
export function checkTokenCoversActivity(
  token: VerifiedBotToken,
  activity: { serviceUrl: string; channelId: string },
): void {
  if (!token.endorsements.includes(activity.channelId)) {
    throw refusal('The Bot Framework key that signed this token does not endorse the activity channel.');
  }
  if (token.serviceUrl !== activity.serviceUrl) {
    throw refusal('The Bot Framework token was not issued for this activity serviceUrl.');
  }
}
