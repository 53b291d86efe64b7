// A WhatsApp Cloud API delivery read and checked, for the agent's enabled WhatsApp integrations: parsed
// (and refused when PostgreSQL could not store it), routed by phone number id, its signature checked
// under each target's app secret, its size bounded. Both the WhatsApp route and its channel adapter read
// deliveries this way.
import { ZWhatsAppWebhookPayload } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { parseJsonDelivery } from '../channels/parse-json-delivery.js';
import { authenticateDelivery } from './delivery-auth.js';
import { MAX_DELIVERY_ITEMS, type RoutedDelivery, routeDelivery } from './route-delivery.js';
import type { WhatsAppIntegration } from './whatsapp-integration.js';

export type CheckedDelivery = Pick<RoutedDelivery, 'messages' | 'unrouted'> & {
  /** The integrations that took it unsigned through their opt-out (allowUnsignedDeliveries). */
  unsigned: WhatsAppIntegration[];
};

export function readWhatsAppDelivery(
  body: Buffer,
  signature: string | undefined,
  integrations: WhatsAppIntegration[],
): CheckedDelivery {
  // Parsed before the signature is checked: the payload names the integration whose secret signs it.
  // Signed or not, a text, message id or sender PostgreSQL cannot store is refused before it is queued.
  const payload = parseJsonDelivery(body, ZWhatsAppWebhookPayload, 'a WhatsApp Cloud API webhook payload');
  const delivery = routeDelivery(payload, integrations);
  const unsigned = authenticateDelivery(body, signature, delivery.targets, integrations);
  if (delivery.items > MAX_DELIVERY_ITEMS) {
    throw new AppError(
      'payload_too_large',
      `A delivery may carry at most ${MAX_DELIVERY_ITEMS} messages and statuses; this one has ${delivery.items}.`,
    );
  }
  return { messages: delivery.messages, unrouted: delivery.unrouted, unsigned };
}
