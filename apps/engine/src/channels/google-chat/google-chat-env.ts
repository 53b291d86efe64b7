// The engine's Google Chat variables: where Google's APIs are (tests point them at a local fake) and
// how long one call may take. Spread into the engine's env schema and its reference docs.
import type { EnvDocs } from '@agentplane/server-kit';
import { z } from 'zod';
import { GOOGLE_CHAT_DEFAULTS, type GoogleChatSettings } from './google-chat-settings.js';

const googleUrl = (defaultUrl: string) =>
  z
    .url({ protocol: /^https?$/, error: `must be an http(s) URL, e.g. ${defaultUrl}` })
    .transform((value) => value.replace(/\/+$/, ''))
    .default(defaultUrl);

export const GOOGLE_CHAT_ENV_FIELDS = {
  GOOGLE_CHAT_API_BASE_URL: googleUrl(GOOGLE_CHAT_DEFAULTS.apiBaseUrl),
  GOOGLE_OAUTH_TOKEN_URL: googleUrl(GOOGLE_CHAT_DEFAULTS.tokenUrl),
  GOOGLE_CHAT_JWKS_URL: googleUrl(GOOGLE_CHAT_DEFAULTS.chatJwksUrl),
  GOOGLE_OIDC_JWKS_URL: googleUrl(GOOGLE_CHAT_DEFAULTS.oidcJwksUrl),
  GOOGLE_CHAT_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
};

export const GOOGLE_CHAT_ENV_DOCS: EnvDocs<typeof GOOGLE_CHAT_ENV_FIELDS> = {
  GOOGLE_CHAT_API_BASE_URL: {
    description:
      'Google Chat API base URL: Google Chat replies, streamed edits and approval cards are sent there (tests point it at a local fake)',
  },
  GOOGLE_OAUTH_TOKEN_URL: {
    description:
      "Google's OAuth 2.0 token endpoint, where a Google Chat integration's service account gets its access tokens (scope `chat.bot`)",
  },
  GOOGLE_CHAT_JWKS_URL: {
    description:
      'The keys `chat@system.gserviceaccount.com` signs Google Chat bearer tokens with, for apps whose authentication audience is their project number',
  },
  GOOGLE_OIDC_JWKS_URL: {
    description:
      "Google's OpenID Connect keys, for Google Chat apps whose authentication audience is their endpoint URL (Chat then sends Google ID tokens)",
  },
  GOOGLE_CHAT_API_TIMEOUT_MS: {
    description: 'Timeout of one Google Chat API or token call, and of one key set fetch; a timed-out reply is retried',
  },
};

export function readGoogleChatSettings(parsed: {
  GOOGLE_CHAT_API_BASE_URL: string;
  GOOGLE_OAUTH_TOKEN_URL: string;
  GOOGLE_CHAT_JWKS_URL: string;
  GOOGLE_OIDC_JWKS_URL: string;
  GOOGLE_CHAT_API_TIMEOUT_MS: number;
}): GoogleChatSettings {
  return {
    apiBaseUrl: parsed.GOOGLE_CHAT_API_BASE_URL,
    tokenUrl: parsed.GOOGLE_OAUTH_TOKEN_URL,
    chatJwksUrl: parsed.GOOGLE_CHAT_JWKS_URL,
    oidcJwksUrl: parsed.GOOGLE_OIDC_JWKS_URL,
    timeoutMs: parsed.GOOGLE_CHAT_API_TIMEOUT_MS,
  };
}
