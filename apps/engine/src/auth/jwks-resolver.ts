// Finds and caches the signing keys of an OIDC issuer: its discovery document names the JWKS,
// and jose's remote key set fetches it, caches it and refetches on an unknown key id. A token names
// its issuer before it is verified, so anyone can make the engine look an issuer up: a failed
// discovery or JWKS fetch is remembered for a short while (not fetched again for every forged
// token), and each answer is read up to a size only.
import { type TSsoConfig, ZIssuerUrl } from '@agentplane/contracts';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { readCappedBody } from './read-capped-body.js';

/** Largest discovery document read; real ones are a few KiB. */
export const MAX_DISCOVERY_BYTES = 64 * 1024;
/** Largest JWKS read; real ones hold a few keys. */
export const MAX_JWKS_BYTES = 256 * 1024;
export const OIDC_FAILURE_TTL_MS_DEFAULT = 30_000;

export type JwksResolver = { keysFor: (settings: TSsoConfig) => Promise<JWTVerifyGetKey> };

/** The tenant's SSO issuer is fetched through the egress policy; the operator's issuers are not. */
export type JwksResolvers = { tenant: JwksResolver; operator: JwksResolver };

export type JwksResolverOptions = {
  /** Timeout of each discovery and JWKS request. */
  timeoutMs?: number;
  /** How long a discovered jwks_uri is trusted before discovery runs again. */
  discoveryTtlMs?: number;
  /** How long a failed discovery or JWKS fetch is answered from memory before it is tried again. */
  failureTtlMs?: number;
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
    const body = await readCappedBody(response, MAX_DISCOVERY_BYTES, 'the discovery document');
    document = JSON.parse(body.toString('utf8')) as typeof document;
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

/**
 * jose's fetch of a JWKS, with its answer size-capped, anything but 200 taken as a failure (the keys
 * could not be had: 503, not the caller's fault), and a failure replayed for `failureTtlMs`.
 */
function createJwksFetch(fetch: typeof globalThis.fetch, failureTtlMs: number): typeof globalThis.fetch {
  const failures = new Map<string, { error: Error; until: number }>();
  return async (input, init) => {
    const url = String(input);
    const failure = failures.get(url);
    if (failure !== undefined && failure.until > Date.now()) {
      throw new IssuerUnavailableError(`the JWKS at ${url} failed moments ago`, { cause: failure.error });
    }
    try {
      const response = await fetch(input, init);
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new IssuerUnavailableError(`the JWKS at ${url} answered HTTP ${response.status}`);
      }
      const body = await readCappedBody(response, MAX_JWKS_BYTES, `the JWKS at ${url}`);
      failures.delete(url);
      return new Response(body, { status: 200 });
    } catch (error) {
      failures.set(url, { error: error as Error, until: Date.now() + failureTtlMs });
      throw error;
    }
  };
}

export function createJwksResolver(options: JwksResolverOptions = {}): JwksResolver {
  const timeoutMs = options.timeoutMs ?? 5000;
  const discoveryTtlMs = options.discoveryTtlMs ?? 60 * 60 * 1000;
  const failureTtlMs = options.failureTtlMs ?? OIDC_FAILURE_TTL_MS_DEFAULT;
  const fetch = options.fetch ?? globalThis.fetch;
  const jwksFetch = createJwksFetch(fetch, failureTtlMs);
  const discoveries = new Map<string, { jwksUri: Promise<string>; expiresAt: number }>();
  const keySets = new Map<string, JWTVerifyGetKey>();

  // Keyed by the issuers of the agent's own settings only: a token naming any other is refused before.
  const jwksUriOf = (issuer: string): Promise<string> => {
    const cached = discoveries.get(issuer);
    if (cached !== undefined && cached.expiresAt > Date.now()) return cached.jwksUri;
    const discovery = { jwksUri: discoverJwksUri(issuer, timeoutMs, fetch), expiresAt: Date.now() + discoveryTtlMs };
    discoveries.set(issuer, discovery);
    // A failure is kept, briefly: until then every token naming this issuer gets the same answer.
    discovery.jwksUri.catch(() => {
      discovery.expiresAt = Date.now() + failureTtlMs;
    });
    return discovery.jwksUri;
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
          [customFetch]: jwksFetch,
        });
        keySets.set(jwksUri, keys);
      }
      return keys;
    },
  };
}
