// The bearer token a bot calls the connectors with, from Entra ID by client credentials (the app's ID
// and password), kept per integration until shortly before it expires. Concurrent replies share one
// request for it; a changed app password (a new config) gets a new token; a token a connector refused
// is forgotten so that the retry asks for another.
import { z } from 'zod';
import { ChannelApiError } from '../channel-adapter.js';
import { callMicrosoft } from './teams-http.js';
import { BOT_FRAMEWORK_SCOPE, BOT_FRAMEWORK_TENANT } from './teams-settings.js';

export type BotCredentials = { integrationId: string; appId: string; appPassword: string; tenantId?: string };

const ZTokenAnswer = z.looseObject({ access_token: z.string().min(1), expires_in: z.coerce.number().int().positive() });

// Renewed this long before it expires, so that a reply never goes out with a token about to lapse.
const RENEW_BEFORE_MS = 5 * 60_000;
const NEVER_ABORTED = new AbortController().signal;

type Entry = { credentials: string; token: Promise<{ value: string; expiresAt: number }> };

export type BotTokenCache = {
  token: (credentials: BotCredentials) => Promise<string>;
  forget: (integrationId: string) => void;
};

export function createBotTokenCache({
  loginBaseUrl,
  timeoutMs,
}: {
  loginBaseUrl: string;
  timeoutMs: number;
}): BotTokenCache {
  const entries = new Map<string, Entry>();

  const fetchToken = async (credentials: BotCredentials) => {
    const tenant = encodeURIComponent(credentials.tenantId ?? BOT_FRAMEWORK_TENANT);
    const answer = await callMicrosoft(
      `${loginBaseUrl}/${tenant}/oauth2/v2.0/token`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: credentials.appId,
          client_secret: credentials.appPassword,
          scope: BOT_FRAMEWORK_SCOPE,
        }),
      },
      // Shared by every reply waiting for it: one caller giving up must not fail the others.
      { timeoutMs, signal: NEVER_ABORTED, what: 'Bot token' },
    );
    const parsed = ZTokenAnswer.safeParse(answer);
    if (!parsed.success) throw new ChannelApiError('Bot token: the answer holds no access_token', true, 200);
    const lifetimeMs = parsed.data.expires_in * 1000;
    return {
      value: parsed.data.access_token,
      expiresAt: Date.now() + Math.max(lifetimeMs - RENEW_BEFORE_MS, lifetimeMs / 2),
    };
  };

  return {
    token: async (credentials) => {
      const key = [credentials.appId, credentials.tenantId ?? '', credentials.appPassword].join('\n');
      const entry = entries.get(credentials.integrationId);
      if (entry?.credentials === key) {
        // A request under way is shared, its failure too (a failed entry is dropped right after).
        const cached = await entry.token;
        if (cached.expiresAt > Date.now()) return cached.value;
      }
      const token = fetchToken(credentials);
      entries.set(credentials.integrationId, { credentials: key, token });
      token.catch(() => {
        if (entries.get(credentials.integrationId)?.token === token) entries.delete(credentials.integrationId);
      });
      return (await token).value;
    },
    forget: (integrationId) => {
      entries.delete(integrationId);
    },
  };
}
