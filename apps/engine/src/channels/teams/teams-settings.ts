// The operator's settings of the Teams channel (env.ts): where the Bot Framework's keys, tokens and
// connectors are, so that tests point them at a local fake and sovereign clouds at their own hosts.
import type { ServiceUrlPattern } from './service-url-allow.js';

export type TeamsSettings = {
  /** The Bot Framework's OpenID metadata: its jwks_uri holds the keys that sign inbound activities. */
  openIdMetadataUrl: string;
  /** Entra ID's token endpoint origin: bot tokens come from `{loginBaseUrl}/{tenant}/oauth2/v2.0/token`. */
  loginBaseUrl: string;
  /** The connector hosts (an activity's serviceUrl) replies may go to, whatever a delivery names. */
  serviceUrlAllow: ServiceUrlPattern[];
  /** One call to the login endpoint, the metadata, the key set or a connector. */
  timeoutMs: number;
};

/** The Bot Framework's issuer of the tokens it signs channel-to-bot activities with. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** The scope a bot asks its token for to call the connectors. */
export const BOT_FRAMEWORK_SCOPE = 'https://api.botframework.com/.default';
/** Where a multi-tenant bot gets its tokens. */
export const BOT_FRAMEWORK_TENANT = 'botframework.com';
