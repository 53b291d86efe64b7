// A secret field holds plaintext in a request body, and its sealed form in a published engine config,
// which every engine validates before it opens the secrets. The sealed form is longer than the
// plaintext, so the cap applies to the plaintext, and a sealed value may be as long as the sealed form
// of the longest plaintext.
import type { z } from 'zod';
import { SECRET_MAX_LENGTH } from '../common/limits.js';

/** The prefix of a value sealed by the manager's secret box (`enc:v1:<key id>:<iv>:<tag>:<ciphertext>`). */
export const SEALED_SECRET_PREFIX = 'enc:v1:';

/**
 * The longest sealed form of a plaintext of `plaintextMax` UTF-16 units: at most 3 UTF-8 bytes per
 * unit, base64url (4 characters per 3 bytes), and under 64 characters of prefix, key id, IV and tag.
 */
export function sealedSecretLengthMax(plaintextMax: number): number {
  return 64 + 4 * plaintextMax;
}

/** `base` (a string schema) capped at `max` characters of plaintext, or the sealed form of such a value. */
export function makeSecretString<S extends z.ZodString>(base: S, max = SECRET_MAX_LENGTH) {
  return base
    .max(sealedSecretLengthMax(max))
    .refine((value) => value.length <= max || value.startsWith(SEALED_SECRET_PREFIX), {
      message: `Too big: expected string to have <=${max} characters`,
    })
    .meta({ maxLength: max });
}
