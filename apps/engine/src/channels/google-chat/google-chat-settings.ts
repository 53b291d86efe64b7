// The operator's settings for Google Chat (env.ts): where its APIs are, so tests point them at a fake.
export type GoogleChatSettings = {
  /** The Chat API, e.g. https://chat.googleapis.com (GOOGLE_CHAT_API_BASE_URL). */
  apiBaseUrl: string;
  /** Where service-account assertions are exchanged for access tokens (GOOGLE_OAUTH_TOKEN_URL). */
  tokenUrl: string;
  /** The keys chat@system.gserviceaccount.com signs its bearer tokens with (GOOGLE_CHAT_JWKS_URL). */
  chatJwksUrl: string;
  /** Google's OpenID Connect keys, for apps whose audience is their endpoint URL (GOOGLE_OIDC_JWKS_URL). */
  oidcJwksUrl: string;
  /** One Chat API or token call, and one key set fetch, at most (GOOGLE_CHAT_API_TIMEOUT_MS). */
  timeoutMs: number;
};

export const GOOGLE_CHAT_DEFAULTS = {
  apiBaseUrl: 'https://chat.googleapis.com',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  chatJwksUrl: 'https://www.googleapis.com/service_accounts/v1/jwk/chat@system.gserviceaccount.com',
  oidcJwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
} as const;

/** The account Google Chat sends events as: the issuer (or, in ID tokens, the email) of its tokens. */
export const CHAT_ISSUER = 'chat@system.gserviceaccount.com';
