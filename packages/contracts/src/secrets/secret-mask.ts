// How a secret is shown to a caller who may not read it (a viewer, or anyone asking with
// `?secrets=masked`): a fixed run of bullets, so the length is not given away, then the last four
// characters only when they are a small share of the secret. The manager accepts the mask back in a
// PATCH as "keep the stored secret", so a frontend can round-trip a form without ever holding secrets.
import { z } from 'zod';

export const SECRET_MASK_BULLETS = '\u2022'.repeat(8);
const TAIL_LENGTH = 4;
/** Shorter secrets are masked by bullets alone: four characters would be a quarter or more of them. */
export const SECRET_MASK_TAIL_MIN_LENGTH = 16;

// Characters are counted and cut by code point, so a tail never splits a surrogate pair.
const MASK = new RegExp(`^${SECRET_MASK_BULLETS}(?:.{${TAIL_LENGTH}})?$`, 'su');

export function maskSecret(secret: string): string {
  const characters = Array.from(secret);
  if (characters.length < SECRET_MASK_TAIL_MIN_LENGTH) return SECRET_MASK_BULLETS;
  return SECRET_MASK_BULLETS + characters.slice(-TAIL_LENGTH).join('');
}

/** Whether a value sent as a secret is a mask rather than a secret (no real secret starts with eight bullets). */
export function isSecretMask(value: string): boolean {
  return MASK.test(value);
}

/** For the OpenAPI description of every secret field. */
export const SECRET_FIELD_RULE =
  `A secret, sealed at rest. Members, admins and owners read it back as a string; viewers (and any caller ` +
  `sending ?secrets=masked) get it masked: "${SECRET_MASK_BULLETS}" followed by its last ${TAIL_LENGTH} ` +
  `characters when it has at least ${SECRET_MASK_TAIL_MIN_LENGTH}, the bullets alone otherwise. Sending the ` +
  `masked value back unchanged keeps the stored secret; any other mask is a 422.`;

export const SECRETS_MASKED = 'masked';

// Not strict, like the pagination query: unrelated query parameters must not break a read.
export const ZSecretsQuery = z.object({
  secrets: z
    .literal(SECRETS_MASKED)
    .optional()
    .meta({
      description:
        'masked: every secret field of the response comes back masked, whatever your role (viewers always get masks). ' +
        'A frontend that round-trips these masks in its PATCH bodies never holds a secret.',
    }),
});
export type TSecretsQuery = z.infer<typeof ZSecretsQuery>;
