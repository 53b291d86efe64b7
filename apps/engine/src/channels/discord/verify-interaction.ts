// Whether an interaction came from Discord: an Ed25519 signature, by the application's public key, over
// X-Signature-Timestamp followed by the raw body, checked by Discord's own `discord-interactions`
// package. A delivery signed longer ago than the window is refused as a replay. Discord's endpoint check
// sends bad signatures on purpose and expects exactly 401 for them.
import { AppError } from '@agentplane/server-kit';
import { verifyKey } from 'discord-interactions';
import type { WebhookDelivery } from '../channel-adapter.js';

/** How far X-Signature-Timestamp may be from now, either way, before the delivery counts as replayed. */
export const SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

const SIGNATURE = /^[0-9a-f]{128}$/i;
const TIMESTAMP = /^\d{1,12}$/;

const refused = (detail: string) => new AppError('unauthorized', detail);

export async function verifyInteraction(delivery: WebhookDelivery, publicKey: string): Promise<void> {
  const signature = delivery.header('x-signature-ed25519')?.trim() ?? '';
  const timestamp = delivery.header('x-signature-timestamp')?.trim() ?? '';
  if (!SIGNATURE.test(signature) || !TIMESTAMP.test(timestamp)) {
    throw refused('X-Signature-Ed25519 and X-Signature-Timestamp are missing or malformed.');
  }
  if (!(await verifyKey(delivery.rawBody, signature, timestamp, publicKey))) {
    throw refused("X-Signature-Ed25519 does not sign this body under the application's public key.");
  }
  // Checked once the signature holds, so the timestamp is Discord's and not the caller's.
  if (Math.abs(delivery.now - Number(timestamp) * 1000) > SIGNATURE_WINDOW_MS) {
    throw refused('X-Signature-Timestamp is more than 5 minutes from now: a stale or replayed delivery.');
  }
}
