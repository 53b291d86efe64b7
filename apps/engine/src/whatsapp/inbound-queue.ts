// WhatsApp's messages on the channels' queue (channels/inbound-queue.ts): a Cloud API message object
// is queued as the item its webhook reads it into, in its sender's conversation.
import { enqueueInboundMessages as enqueueItems } from '../channels/inbound-queue.js';
import { queuedMessageOf } from '../channels/queued-item.js';
import type { Queryable } from '../threads/thread-store.js';
import { inboundItemOf } from './route-delivery.js';

export { type ClaimedMessage, claimInboundMessage } from '../channels/inbound-queue.js';

export type NewWhatsAppMessage = {
  integrationId: string;
  providerMessageId: string;
  sender: string;
  /** The Cloud API's message object. */
  payload: { id: string; from: string; type: string; text?: { body: string } };
};

/** Stores the messages not stored before; returns how many were new. */
export const enqueueInboundMessages = (db: Queryable, agentId: string, messages: NewWhatsAppMessage[]) =>
  enqueueItems(
    db,
    agentId,
    messages.map(({ integrationId, payload }) =>
      queuedMessageOf({ id: integrationId, provider: 'WHATSAPP' }, inboundItemOf(payload)),
    ),
  );
