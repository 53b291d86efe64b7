// Encryption at rest for configuration secrets: AES-256-GCM with a random 96-bit IV per value.
// A value is stored as `enc:v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url parts), so the key that
// sealed it is known and keys can be rotated: new values use the current key, older keys still open.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const KEY_BYTES = 32;

export type SecretBox = {
  /** Id of the key new values are sealed with. */
  keyId: string;
  seal: (plaintext: string) => string;
  /** Opens a sealed value; a value that was never sealed (a config file's plaintext) passes through. */
  open: (value: string) => string;
};

export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** The id of the key a sealed value names, or undefined for a value that is not sealed. */
export function sealedKeyId(value: string): string | undefined {
  return isSealed(value) ? value.slice(PREFIX.length).split(':', 1)[0] : undefined;
}

/** Accepts 32 bytes as base64 (44 chars, as `openssl rand -base64 32` prints) or as 64 hex chars. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) {
    throw new SecretKeyError('SECRETS_KEY must be 32 random bytes, base64 or hex (openssl rand -base64 32)');
  }
  return key;
}

/** For env schemas: whether `text` is a key parseSecretKey accepts. */
export function isSecretKey(text: string): boolean {
  try {
    parseSecretKey(text);
    return true;
  } catch {
    return false;
  }
}

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

export type SecretBoxOptions = {
  /**
   * Authenticated with every value and required to open it (AES-GCM associated data): a value sealed
   * for one context, such as one agent, does not open in another even under the same key.
   */
  associatedData?: string;
};

export function createSecretBox(
  currentKey: string,
  previousKeys: string[] = [],
  options: SecretBoxOptions = {},
): SecretBox {
  const current = parseSecretKey(currentKey);
  const aad = options.associatedData === undefined ? undefined : Buffer.from(options.associatedData, 'utf8');
  const keys = new Map([current, ...previousKeys.map(parseSecretKey)].map((key) => [keyIdOf(key), key]));
  const keyId = keyIdOf(current);

  return {
    keyId,
    seal: (plaintext) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      if (aad) cipher.setAAD(aad);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
      return `${PREFIX}${keyId}:${parts.join(':')}`;
    },
    open: (value) => {
      if (!isSealed(value)) return value;
      const [id, iv, tag, ciphertext] = value.slice(PREFIX.length).split(':');
      const key = id === undefined ? undefined : keys.get(id);
      if (!key || iv === undefined || tag === undefined || ciphertext === undefined) {
        throw new SecretKeyError(`A secret was sealed with key ${id ?? '?'}, which is not configured`);
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      if (aad) decipher.setAAD(aad);
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
