// The Teams channel's variables, read by the engine's env schema (env.ts) and documented beside it
// (env-docs.ts): the Microsoft endpoints, each replaceable so that tests use a local fake.
import type { EnvDocs } from '@agentplane/server-kit';
import { z } from 'zod';
import { DEFAULT_SERVICE_URL_ALLOW, parseServiceUrlPattern, type ServiceUrlPattern } from './service-url-allow.js';
import type { TeamsSettings } from './teams-settings.js';

const ZHttpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .transform((value) => value.replace(/\/+$/, ''));

// Defaulted before the transform, so that the default is read like a value the operator set.
const ZServiceUrlAllow = z
  .string()
  .default(DEFAULT_SERVICE_URL_ALLOW)
  .transform((value, context): ServiceUrlPattern[] => {
    const patterns = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
    return patterns.flatMap((item) => {
      const pattern = parseServiceUrlPattern(item);
      if (pattern === undefined) {
        context.addIssue(
          `"${item}" is not an origin such as https://smba.trafficmanager.net or https://*.botframework.com`,
        );
      }
      return pattern ?? [];
    });
  });

export const TEAMS_ENV_FIELDS = {
  TEAMS_OPENID_METADATA_URL: ZHttpUrl.default('https://login.botframework.com/v1/.well-known/openidconfiguration'),
  TEAMS_LOGIN_BASE_URL: ZHttpUrl.default('https://login.microsoftonline.com'),
  TEAMS_SERVICE_URL_ALLOW: ZServiceUrlAllow,
  TEAMS_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
};

export const TEAMS_ENV_DOCS: EnvDocs<typeof TEAMS_ENV_FIELDS> = {
  TEAMS_OPENID_METADATA_URL: {
    description:
      "The Bot Framework's OpenID metadata; its `jwks_uri` holds the keys Teams deliveries are signed with (tests point it at a local fake)",
  },
  TEAMS_LOGIN_BASE_URL: {
    description:
      "Where Teams bots get the tokens they reply with: `{this}/{tenant}/oauth2/v2.0/token`, tenant `botframework.com` or the integration's `tenantId`",
  },
  TEAMS_SERVICE_URL_ALLOW: {
    description:
      "Comma-separated origins of the Bot Framework connectors replies may go to (a host may start with `*.`); a delivery naming another `serviceUrl` is refused (403). Add the government clouds' connectors (e.g. `https://smba.infra.gcc.teams.microsoft.com`) to serve them",
    default: `\`${DEFAULT_SERVICE_URL_ALLOW}\``,
  },
  TEAMS_API_TIMEOUT_MS: {
    description: 'Timeout of one call to the Bot Framework (keys, tokens, connectors); a timed-out reply is retried',
  },
};

export function readTeamsSettings(parsed: {
  TEAMS_OPENID_METADATA_URL: string;
  TEAMS_LOGIN_BASE_URL: string;
  TEAMS_SERVICE_URL_ALLOW: ServiceUrlPattern[];
  TEAMS_API_TIMEOUT_MS: number;
}): TeamsSettings {
  return {
    openIdMetadataUrl: parsed.TEAMS_OPENID_METADATA_URL,
    loginBaseUrl: parsed.TEAMS_LOGIN_BASE_URL,
    serviceUrlAllow: parsed.TEAMS_SERVICE_URL_ALLOW,
    timeoutMs: parsed.TEAMS_API_TIMEOUT_MS,
  };
}
