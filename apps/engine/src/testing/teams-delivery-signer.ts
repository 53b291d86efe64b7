// Signs test deliveries the way the Bot Framework does, with jose: an RS256 token from a key of its
// own (served by the fake Teams API's key set, with the channels it endorses), issued by
// https://api.botframework.com for a bot's App ID, carrying the activity's serviceUrl.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { BOT_FRAMEWORK_ISSUER } from '../channels/teams/teams-settings.js';

export type BotTokenClaims = {
  appId: string;
  serviceUrl: string | undefined;
  issuer?: string;
  /** Seconds since the epoch; by default an hour from now. */
  expiresAt?: number;
  issuedAt?: number;
};

export type BotFrameworkSigner = {
  /** The public key as the Bot Framework's key set lists it. */
  jwks: { keys: Record<string, unknown>[] };
  token: (claims: BotTokenClaims) => Promise<string>;
};

export async function createBotFrameworkSigner({ endorsements = ['msteams'] } = {}): Promise<BotFrameworkSigner> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomUUID();
  const jwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256', endorsements };
  return {
    jwks: { keys: [jwk] },
    token: async ({ appId, serviceUrl, issuer = BOT_FRAMEWORK_ISSUER, expiresAt, issuedAt }) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT(serviceUrl === undefined ? {} : { serviceurl: serviceUrl })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setAudience(appId)
        .setIssuedAt(issuedAt ?? now)
        .setNotBefore(issuedAt ?? now)
        .setExpirationTime(expiresAt ?? now + 3600)
        .sign(privateKey);
    },
  };
}
