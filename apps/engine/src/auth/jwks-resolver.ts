// Finds and caches the signing keys of an OIDC issuer: its discovery document names the JWKS,
// and jose's remote key set fetches it, caches it and refetches on an unknown key id.
import { type TSsoConfig, ZIssuerUrl } from '@agentplane/contracts';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';

export type JwksResolver = { keysFor: (settings: TSsoConfig) => Promise<JWTVerifyGetKey> };

/** The tenant's SSO issuer is fetched through the egress policy; the operator's issuers are not. */
export type JwksResolvers = { tenant: JwksResolver; operator: JwksResolver };

export type JwksResolverOptions = {
  /** Timeout of each discovery and JWKS request. */
  timeoutMs?: number;
  /** How long a discovered jwks_uri is trusted before discovery runs again. */
  discoveryTtlMs?: number;
  /** How discovery and JWKS requests are made: the egress policy's fetch for a tenant's issuer. */
  fetch?: typeof globalThis.fetch;
};

/** The issuer's keys cannot be fetched: the token may be fine, the engine cannot tell. */
export class IssuerUnavailableError extends Error {
  override name = 'IssuerUnavailableError';
}

async function discoverJwksUri(issuer: string, timeoutMs: number, fetch: typeof globalThis.fetch): Promise<string> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let document: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    document = (await response.json()) as typeof document;
  } catch (error) {
    throw new IssuerUnavailableError(`OIDC discovery at ${url} failed: ${(error as Error).message}`);
  }
  // OpenID Connect Discovery 1.0 §4.3: the document must name exactly the issuer it was fetched for.
  if (document.issuer !== issuer) {
    throw new IssuerUnavailableError(`OIDC discovery at ${url} names another issuer: ${String(document.issuer)}`);
  }
  const jwksUri = typeof document.jwks_uri === 'string' ? document.jwks_uri : '';
  // An issuer the operator trusts over plain http (the manager on a private network) may serve its keys there too.
  const sameOrigin = URL.canParse(jwksUri) && new URL(jwksUri).origin === new URL(issuer).origin;
  if (!sameOrigin && !ZIssuerUrl.safeParse(jwksUri).success) {
    throw new IssuerUnavailableError(`OIDC discovery at ${url} has no usable jwks_uri`);
  }
  return jwksUri;
}

export function createJwksResolver(options: JwksResolverOptions = {}): JwksResolver {
  const timeoutMs = options.timeoutMs ?? 5000;
  const discoveryTtlMs = options.discoveryTtlMs ?? 60 * 60 * 1000;
  const fetch = options.fetch ?? globalThis.fetch;
  const discoveries = new Map<string, { jwksUri: Promise<string>; expiresAt: number }>();
  const keySets = new Map<string, JWTVerifyGetKey>();

  const jwksUriOf = (issuer: string): Promise<string> => {
    const cached = discoveries.get(issuer);
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached.jwksUri;
    const jwksUri = discoverJwksUri(issuer, timeoutMs, fetch);
    discoveries.set(issuer, { jwksUri, expiresAt: Date.now() + discoveryTtlMs });
    // A failed discovery is not cached: the next request tries again.
    void jwksUri.catch(() => discoveries.delete(issuer));
    return jwksUri;
  };

  return {
    keysFor: async (settings) => {
      const jwksUri = settings.jwksUri ?? (await jwksUriOf(settings.issuer));
      let keys = keySets.get(jwksUri);
      if (keys === undefined) {
        keys = createRemoteJWKSet(new URL(jwksUri), {
          timeoutDuration: timeoutMs,
          cooldownDuration: 30_000,
          cacheMaxAge: 10 * 60 * 1000,
          [customFetch]: fetch,
        });
        keySets.set(jwksUri, keys);
      }
      return keys;
    },
  };
}
