// Sorts one webhook delivery out by integration: each change names the phone number it is for
// (metadata.phone_number_id), and that number picks the integration, whose app secret must have
// signed the delivery and whose queue rows its messages become.
import type { TWhatsAppInboundMessage, TWhatsAppWebhookPayload } from '@agentplane/contracts';
import type { InboundItem } from '../channels/channel-adapter.js';
import type { WhatsAppIntegration } from './whatsapp-integration.js';

/**
 * Most messages and statuses one delivery may carry, in all its entries and changes. Meta batches a
 * few per delivery; a larger one is refused (413) before anything is queued, so one request cannot
 * make the engine write without bound.
 */
export const MAX_DELIVERY_ITEMS = 100;

export type RoutedDelivery = {
  /** The integrations at least one change is for, each once: the delivery must be signed for every one. */
  targets: WhatsAppIntegration[];
  /** Each message with the integration (the phone number) it was sent to. */
  messages: { integration: WhatsAppIntegration; item: InboundItem }[];
  /** Messages for a phone number id no integration has: dropped, with a warning. */
  unrouted: number;
  /** Messages and statuses in the whole delivery, routed or not. */
  items: number;
};

function integrationFor(
  phoneNumberId: string | undefined,
  integrations: WhatsAppIntegration[],
): WhatsAppIntegration | undefined {
  if (phoneNumberId === undefined) return integrations.length === 1 ? integrations[0] : undefined;
  return integrations.find((candidate) => candidate.config.phoneNumberId === phoneNumberId);
}

/** One conversation per sender: the reply goes back to them. Only text is read; anything else gets the fixed reply. */
export function inboundItemOf(message: TWhatsAppInboundMessage): InboundItem {
  const body = message.type === 'text' ? message.text?.body : undefined;
  return {
    kind: 'message',
    providerMessageId: message.id,
    conversation: message.from,
    sender: message.from,
    address: { to: message.from },
    text: body === undefined || body.trim() === '' ? undefined : body,
    attachments: [],
  };
}

export function routeDelivery(payload: TWhatsAppWebhookPayload, integrations: WhatsAppIntegration[]): RoutedDelivery {
  const targets = new Set<WhatsAppIntegration>();
  const messages: RoutedDelivery['messages'] = [];
  let unrouted = 0;
  let items = 0;
  // Only a business account's deliveries carry messages; anything else is acknowledged and ignored.
  const changes = payload.object === 'whatsapp_business_account' ? payload.entry.flatMap((entry) => entry.changes) : [];
  for (const { value } of changes) {
    const found = value.messages ?? [];
    items += found.length + (value.statuses?.length ?? 0);
    const integration = integrationFor(value.metadata?.phone_number_id, integrations);
    if (integration === undefined) {
      unrouted += found.length;
      continue;
    }
    targets.add(integration);
    // Status updates (sent, delivered, read) need no answer: acknowledged and skipped.
    for (const message of found) {
      messages.push({ integration, item: inboundItemOf(message) });
    }
  }
  return { targets: [...targets], messages, unrouted, items };
}
