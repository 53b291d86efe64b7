// Access tokens for the Chat API, as the integration's service account: an assertion signed with its
// private key (jose, RS256) exchanged at Google's token endpoint (OAuth 2.0 JWT bearer grant, RFC 7523)
// for a token of scope chat.bot, kept until shortly before it expires. One cache per engine, keyed by
// integration id; a changed key or account (a new config) gets a new token.

import type { TGoogleChatConfig } from '@agentplane/contracts';
import { importPKCS8, SignJWT } from 'jose';
import { ChannelApiError } from '../channel-adapter.js';
import { callGoogleApi } from './call-google-api.js';

export const CHAT_BOT_SCOPE = 'https://www.googleapis.com/auth/chat.bot';
const ASSERTION_LIFETIME_SECONDS = 3600;
// A token this close to its expiry is renewed: a call made with it could arrive after it lapsed.
const RENEW_BEFORE_EXPIRY_MS = 60_000;
const NEVER_ABORTED = new AbortController().signal;

type Credentials = Pick<TGoogleChatConfig, 'serviceAccountEmail' | 'serviceAccountPrivateKey'>;
type CachedToken = { credentials: Credentials; token: Promise<{ accessToken: string; expiresAt: number }> };

export type AccessTokens = {
  tokenFor: (integrationId: string, credentials: Credentials) => Promise<string>;
  /** After a 401: the token was revoked or the clock lied; the next call asks for a new one. */
  forget: (integrationId: string) => void;
};

async function signAssertion(credentials: Credentials, tokenUrl: string, now: number): Promise<string> {
  let key: Awaited<ReturnType<typeof importPKCS8>>;
  try {
    key = await importPKCS8(credentials.serviceAccountPrivateKey, 'RS256');
  } catch {
    throw new ChannelApiError('the service account private key is not an RSA PKCS #8 key', false, undefined);
  }
  const issuedAt = Math.floor(now / 1000);
  return new SignJWT({ scope: CHAT_BOT_SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(credentials.serviceAccountEmail)
    .setAudience(tokenUrl)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_LIFETIME_SECONDS)
    .sign(key);
}

function readTokenAnswer(body: unknown, now: number): { accessToken: string; expiresAt: number } {
  const { access_token: accessToken, expires_in: expiresIn } = (body ?? {}) as Record<string, unknown>;
  if (typeof accessToken !== 'string' || accessToken === '' || typeof expiresIn !== 'number') {
    throw new ChannelApiError('Google token endpoint: no access_token and expires_in in its answer', true, undefined);
  }
  return { accessToken, expiresAt: now + expiresIn * 1000 };
}

export function createAccessTokens(
  settings: { tokenUrl: string; timeoutMs: number },
  clock: () => number = Date.now,
): AccessTokens {
  const cache = new Map<string, CachedToken>();

  const requestToken = async (credentials: Credentials) => {
    const now = clock();
    const assertion = await signAssertion(credentials, settings.tokenUrl, now);
    const body = await callGoogleApi(
      'Google token endpoint',
      {
        url: settings.tokenUrl,
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      },
      settings.timeoutMs,
      NEVER_ABORTED,
    );
    return readTokenAnswer(body, now);
  };

  const isCurrent = (cached: CachedToken | undefined, credentials: Credentials): cached is CachedToken =>
    cached !== undefined &&
    cached.credentials.serviceAccountEmail === credentials.serviceAccountEmail &&
    cached.credentials.serviceAccountPrivateKey === credentials.serviceAccountPrivateKey;

  return {
    tokenFor: async (integrationId, credentials) => {
      const cached = cache.get(integrationId);
      if (isCurrent(cached, credentials)) {
        const settled = await cached.token.catch(() => undefined);
        if (settled !== undefined && settled.expiresAt - RENEW_BEFORE_EXPIRY_MS > clock()) return settled.accessToken;
      }
      // Concurrent callers share one request, bounded by its timeout rather than by whichever caller
      // started it; a failed one is not kept, so the next call asks again.
      const entry: CachedToken = { credentials, token: requestToken(credentials) };
      cache.set(integrationId, entry);
      entry.token.catch(() => {
        if (cache.get(integrationId) === entry) cache.delete(integrationId);
      });
      return (await entry.token).accessToken;
    },
    forget: (integrationId) => {
      cache.delete(integrationId);
    },
  };
}
