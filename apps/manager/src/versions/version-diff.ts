// The JSON Patch (RFC 6902, fast-json-patch) between two versions' snapshots, with every secret
// masked. Secrets sealed twice differ as ciphertext even when equal, so each is opened and replaced by
// a token: an HMAC under a key made for this one comparison and then forgotten. Equal secrets get equal
// tokens (no operation); a changed one is a replace whose value is the mask. No token leaves this module.
import { createHmac, randomBytes } from 'node:crypto';
import { SECRET_MASK_BULLETS } from '@agentplane/contracts';
import type { SecretBox } from '@agentplane/db';
import fastJsonPatch from 'fast-json-patch';
import { type VersionSnapshot, viewSnapshot } from './version-snapshot.js';

export type JsonPatchOperation = {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
};

/** `value` with every token replaced by the mask, however deep (an added object may hold secrets). */
function maskTokens(value: unknown, tokens: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return tokens.has(value) ? SECRET_MASK_BULLETS : value;
  if (Array.isArray(value)) return value.map((item) => maskTokens(item, tokens));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskTokens(item, tokens)]));
  }
  return value;
}

export function diffSnapshots(from: VersionSnapshot, to: VersionSnapshot, box: SecretBox): JsonPatchOperation[] {
  const key = randomBytes(32);
  const tokens = new Set<string>();
  const tokenOf = (secret: string) => {
    const token = `secret:${createHmac('sha256', key).update(secret).digest('base64url')}`;
    tokens.add(token);
    return token;
  };
  const operations = fastJsonPatch.compare(viewSnapshot(from, box, tokenOf), viewSnapshot(to, box, tokenOf));
  return operations.map((operation) => maskTokens(operation, tokens) as JsonPatchOperation);
}
