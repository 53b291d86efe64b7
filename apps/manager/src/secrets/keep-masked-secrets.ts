// A PATCH may send back the mask a read gave it instead of a secret, meaning "keep the stored one".
// Any other mask (forged, of a secret changed since, or where nothing is stored) is refused: storing
// it would replace a working secret with bullets.
import { formatIssuePath, isSecretMask, maskSecret, type SecretTransform } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';

/** One of the `map…Secrets` walkers of the contracts, for the kind of object at hand. */
export type MapSecrets<T> = (value: T, transform: SecretTransform) => T;

export const MISMATCHED_MASK =
  'Is a masked value that does not match the secret stored here: send the secret itself or the masked value you received';

function storedSecretsOf<T>(stored: T | undefined, mapSecrets: MapSecrets<T>): Map<string, string> {
  const byPath = new Map<string, string>();
  // The walker is used to read: it visits every secret with its path and changes nothing.
  if (stored !== undefined) {
    mapSecrets(stored, (value, path) => {
      byPath.set(JSON.stringify(path), value);
      return value;
    });
  }
  return byPath;
}

/**
 * `sent` with each mask replaced by the stored secret it stands for; `stored` is what is there now
 * (undefined on create). `at` prefixes the paths of the 422, e.g. `['integration']`.
 */
export function keepMaskedSecrets<T>(options: {
  sent: T;
  stored: T | undefined;
  mapSecrets: MapSecrets<T>;
  at: readonly PropertyKey[];
}): T {
  const stored = storedSecretsOf(options.stored, options.mapSecrets);
  const errors: { path: string; message: string }[] = [];
  const kept = options.mapSecrets(options.sent, (value, path) => {
    if (!isSecretMask(value)) return value;
    const secret = stored.get(JSON.stringify(path));
    if (secret !== undefined && maskSecret(secret) === value) return secret;
    errors.push({ path: formatIssuePath([...options.at, ...path]), message: MISMATCHED_MASK });
    return value;
  });
  if (errors.length > 0) {
    throw new AppError('validation_failed', 'A masked value stands only for the secret stored in its place.', {
      errors,
    });
  }
  return kept;
}
