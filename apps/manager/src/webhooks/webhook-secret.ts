// Signing secrets in the Standard Webhooks form: whsec_ then the base64 of random bytes, the form its
// verifiers take as is. Stored sealed; shown whole by a create and a rotation only.
import { randomBytes } from 'node:crypto';
import { maskSecret } from '@agentplane/contracts';

const SECRET_BYTES = 32;
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export function hintOfSecret(secret: string): string {
  return maskSecret(secret);
}
