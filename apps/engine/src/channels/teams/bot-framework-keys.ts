// The keys the Bot Framework signs inbound activities with: its OpenID metadata names a jwks_uri, and
// jose's remote key set fetches, caches and re-fetches that set (on an unknown kid, at most every 30 s).
// The metadata is read once per process; a failed read is retried by the next delivery, no sooner than
// FAILURE_COOLDOWN_MS later, so a flood of deliveries while the metadata is down does not become a flood
// of calls to it.
import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';

const FAILURE_COOLDOWN_MS = 10_000;

export type BotFrameworkKeys = {
  /** The key set for jwtVerify; rejects (not a verification failure) while the keys cannot be fetched. */
  getKey: () => Promise<RemoteKeySet>;
};

export type RemoteKeySet = JWTVerifyGetKey & { jwks: () => { keys: Record<string, unknown>[] } | undefined };

export class KeysUnavailableError extends Error {
  override name = 'KeysUnavailableError';
}

async function readJwksUri(metadataUrl: string, timeoutMs: number): Promise<string> {
  const response = await fetch(metadataUrl, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new KeysUnavailableError(`OpenID metadata answered HTTP ${response.status}`);
  const metadata = (await response.json()) as { jwks_uri?: unknown };
  if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri)) {
    throw new KeysUnavailableError('OpenID metadata names no jwks_uri');
  }
  return metadata.jwks_uri;
}

export function createBotFrameworkKeys(metadataUrl: string, timeoutMs: number): BotFrameworkKeys {
  let keySet: RemoteKeySet | undefined;
  let pending: Promise<RemoteKeySet> | undefined;
  let failedAt = Number.NEGATIVE_INFINITY;
  return {
    getKey: async () => {
      if (keySet !== undefined) return keySet;
      if (pending === undefined) {
        if (Date.now() - failedAt < FAILURE_COOLDOWN_MS) {
          throw new KeysUnavailableError('the Bot Framework OpenID metadata could not be read a moment ago');
        }
        pending = readJwksUri(metadataUrl, timeoutMs).then(
          (jwksUri) => {
            keySet = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: timeoutMs }) as RemoteKeySet;
            return keySet;
          },
          (error: unknown) => {
            failedAt = Date.now();
            pending = undefined;
            throw error instanceof KeysUnavailableError
              ? error
              : new KeysUnavailableError('the Bot Framework OpenID metadata could not be read', { cause: error });
          },
        );
      }
      return pending;
    },
  };
}
