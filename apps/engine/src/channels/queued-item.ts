// An inbound item as a queue row and back: the row's columns hold what the queue orders and
// de-duplicates by (provider id, conversation, sender, kind), its payload the rest.
import type { TEngineIntegration } from '@agentplane/contracts';
import type { InboundAttachment, InboundItem, ReplyAddress } from './channel-adapter.js';
import type { ClaimedMessage, NewInboundMessage } from './inbound-queue.js';

export function queuedMessageOf(
  integration: Pick<TEngineIntegration, 'id' | 'provider'>,
  item: InboundItem,
): NewInboundMessage {
  const { providerMessageId, conversation, sender, address } = item;
  const payload =
    item.kind === 'message'
      ? { text: item.text, attachments: item.attachments, address }
      : { interruptId: item.interruptId, approved: item.approved, address };
  return {
    integrationId: integration.id,
    provider: integration.provider,
    providerMessageId,
    conversation,
    sender,
    kind: item.kind,
    payload,
  };
}

const textOf = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/**
 * Rows queued before channels hold the WhatsApp Cloud API's message object itself and no address: the
 * reply goes to the sender, and only a text message has text.
 */
function fromWhatsAppMessage(claim: ClaimedMessage): InboundItem {
  const { payload } = claim;
  const text = payload.type === 'text' ? textOf((payload.text as { body?: unknown } | undefined)?.body) : undefined;
  return { ...baseOf(claim), address: { to: claim.sender }, kind: 'message', text, attachments: [] };
}

const baseOf = ({ providerMessageId, conversation, sender }: ClaimedMessage) => ({
  providerMessageId,
  conversation,
  sender,
});

export function inboundItemOf(claim: ClaimedMessage): InboundItem {
  const { payload } = claim;
  if (typeof payload.address !== 'object' || payload.address === null) return fromWhatsAppMessage(claim);
  const address = payload.address as ReplyAddress;
  if (claim.kind === 'approval') {
    return {
      ...baseOf(claim),
      address,
      kind: 'approval',
      interruptId: String(payload.interruptId),
      approved: payload.approved === true,
    };
  }
  const attachments = Array.isArray(payload.attachments) ? (payload.attachments as InboundAttachment[]) : [];
  return { ...baseOf(claim), address, kind: 'message', text: textOf(payload.text), attachments };
}
