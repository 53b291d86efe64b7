// Whether a webhook delivery may be stored: Meta signs each one (X-Hub-Signature-256) with the app
// secret of the Meta app the phone number belongs to, so the signature is checked under the secret of
// the integration the delivery is routed to. An integration without an app secret cannot tell Meta
// from anyone else, so it refuses every delivery unless its config opts out (allowUnsignedDeliveries).
import { AppError } from '@agentplane/server-kit';
import type { DeliveryState } from '../channels/channel-adapter.js';
import { hasValidSignature } from './verify-webhook.js';
import type { WhatsAppIntegration } from './whatsapp-integration.js';

/** How an integration takes deliveries; `refused` means it can receive none (see /health). */
export type DeliveryAcceptance = DeliveryState['deliveries'];

export function deliveryAcceptance(integration: WhatsAppIntegration): DeliveryAcceptance {
  if (integration.config.appSecret !== undefined) return 'signature_required';
  return integration.config.allowUnsignedDeliveries === true ? 'unsigned_allowed' : 'refused';
}

const badSignature = () => new AppError('unauthorized', 'X-Hub-Signature-256 is missing or does not match the body.');

/**
 * Checks a delivery's signature for each integration it is routed to (`targets`), and returns the
 * targets that took it unsigned through the opt-out; anything else is a 401.
 *
 * Each target, not any one: a signature only proves which Meta app sent the body. Were one valid
 * signature enough for a delivery naming two phone numbers, whoever holds the app secret of one
 * integration could post messages into another. Meta sends the numbers of one app per delivery, so a
 * genuine delivery verifies under each of its targets' secrets.
 */
export function authenticateDelivery(
  body: Buffer,
  signature: string | undefined,
  targets: WhatsAppIntegration[],
  integrations: WhatsAppIntegration[],
): WhatsAppIntegration[] {
  const signedFor = ({ config }: WhatsAppIntegration) =>
    config.appSecret !== undefined && hasValidSignature(body, signature, config.appSecret);
  if (targets.length === 0) {
    // Nothing will be stored. It is acknowledged (so Meta stops retrying a number this agent no longer
    // has) only when one of the agent's app secrets signed it; an unproven caller gets nothing but 401.
    if (!integrations.some(signedFor)) throw badSignature();
    return [];
  }
  const unsigned: WhatsAppIntegration[] = [];
  for (const target of targets) {
    const acceptance = deliveryAcceptance(target);
    if (acceptance === 'refused') {
      throw new AppError(
        'unauthorized',
        'The WhatsApp integration this delivery is for has no appSecret, so its deliveries cannot be verified and are refused.',
      );
    }
    if (acceptance === 'unsigned_allowed') unsigned.push(target);
    else if (!signedFor(target)) throw badSignature();
  }
  return unsigned;
}

/** The integration's delivery state for /health. */
export function deliveryState(integration: WhatsAppIntegration): DeliveryState {
  const deliveries = deliveryAcceptance(integration);
  if (deliveries !== 'refused') return { deliveries };
  return { deliveries, error: 'No appSecret is set, so every webhook delivery is refused (401)' };
}
