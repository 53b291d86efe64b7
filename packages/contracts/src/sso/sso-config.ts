// The OIDC setting an engine uses to check `Authorization: Bearer` tokens on its run endpoint.
import { z } from 'zod';
import {
  DOMAIN_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  SSO_ALLOWED_DOMAINS_MAX_ITEMS,
  SSO_ALLOWED_EMAILS_MAX_ITEMS,
  URL_MAX_LENGTH,
} from '../common/limits.js';
import { EGRESS_RULE, hasUserinfo, NO_USERINFO_RULE, ZNonBlankString, ZUrlText } from '../common/primitives.js';

// Only public-key algorithms: an HMAC algorithm would let anyone holding the public JWKS forge tokens.
export const ASYMMETRIC_JWT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;
export type TJwtAlgorithm = (typeof ASYMMETRIC_JWT_ALGORITHMS)[number];
export const SSO_ALGORITHMS_DEFAULT: TJwtAlgorithm[] = ['RS256', 'ES256'];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https, or plain http for a loopback host only (a local issuer in development and tests); no user name or password. */
export const ZIssuerUrl = ZUrlText.refine((url) => !hasUserinfo(url), NO_USERINFO_RULE).superRefine((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'Must be an absolute URL' });
    return;
  }
  const secure = url.protocol === 'https:';
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
  if (!secure && !loopbackHttp) {
    ctx.addIssue({ code: 'custom', message: 'Must be an https URL (http only for localhost or 127.0.0.1)' });
  }
});

/**
 * The OIDC issuer: an issuer identifier has no query or fragment (OpenID Connect Discovery 1.0, and RFC
 * 8414 for OAuth), and tokens name it exactly in `iss`, so one with either could never match.
 */
export const ZOidcIssuer = ZIssuerUrl.refine(
  (url) => !/[?#]/.test(url),
  'An OIDC issuer has no query (?) or fragment (#)',
);

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const ZSsoConfig = z
  .strictObject({
    enabled: z.boolean().default(true),
    issuer: ZOidcIssuer.describe(
      `The OIDC issuer; its discovery document is fetched from it. A user name or password, a query or a fragment in it is refused. ${EGRESS_RULE}`,
    ),
    audience: ZNonBlankString.max(URL_MAX_LENGTH),
    jwksUri: ZIssuerUrl.optional().describe(
      `The issuer's JWKS, skipping discovery. A user name or password in it is refused. ${EGRESS_RULE}`,
    ),
    algorithms: z
      .array(z.enum(ASYMMETRIC_JWT_ALGORITHMS))
      .min(1)
      .max(ASYMMETRIC_JWT_ALGORITHMS.length)
      .refine((algorithms) => new Set(algorithms).size === algorithms.length, 'Must not repeat an algorithm')
      .default(() => [...SSO_ALGORITHMS_DEFAULT]),
    allowedEmails: z.array(z.email().max(EMAIL_MAX_LENGTH).toLowerCase()).max(SSO_ALLOWED_EMAILS_MAX_ITEMS).optional(),
    allowedDomains: z
      .array(z.string().max(DOMAIN_MAX_LENGTH).toLowerCase().regex(DOMAIN, 'Must be a domain name such as example.com'))
      .max(SSO_ALLOWED_DOMAINS_MAX_ITEMS)
      .optional(),
  })
  .meta({ id: 'SsoConfig', description: 'OIDC settings that protect an agent engine' });
export type TSsoConfig = z.infer<typeof ZSsoConfig>;
export type TSsoConfigInput = z.input<typeof ZSsoConfig>;
