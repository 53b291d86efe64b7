// WhatsApp as a channel: deliveries to POST /integrations/whatsapp/webhook/{integrationId} are read as
// the WhatsApp route reads them (read-delivery.ts), and replies go out through the Cloud API. WhatsApp
// cannot edit a message nor show buttons: replies are sent whole, in parts of at most 4096 characters,
// and tool approvals follow the tool policy's `unattended`.
import { INTEGRATION_WEBHOOK_SLUGS } from '@agentplane/contracts';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import type { WhatsAppApiSettings } from '../env.js';
import { deliveryState } from './delivery-auth.js';
import { sendWhatsAppText } from './graph-client.js';
import { readWhatsAppDelivery } from './read-delivery.js';
import { WHATSAPP_TEXT_LIMIT } from './split-text.js';

const EVENT_RECEIVED = { status: 200, contentType: 'text/plain', body: 'EVENT_RECEIVED' } as const;

export function createWhatsAppAdapter(settings: WhatsAppApiSettings): ChannelAdapter<'WHATSAPP'> {
  return {
    provider: 'WHATSAPP',
    slug: INTEGRATION_WEBHOOK_SLUGS.WHATSAPP,
    receive: async (delivery, integration) => {
      const read = readWhatsAppDelivery(delivery.rawBody, delivery.header('x-hub-signature-256'), [integration]);
      return { answer: EVENT_RECEIVED, items: read.messages.map(({ item }) => item) };
    },
    deliveryState,
    outbound: ({ config }) => {
      const target = {
        baseUrl: settings.graphApiBaseUrl,
        apiVersion: config.apiVersion,
        phoneNumberId: config.phoneNumberId,
        accessToken: config.accessToken,
        timeoutMs: settings.graphApiTimeoutMs,
      };
      return {
        maxLength: WHATSAPP_TEXT_LIMIT,
        // WhatsApp reads *bold*, _italic_ and ``` itself; the agent's markdown is sent as written.
        format: (markdown) => markdown,
        post: (address, text, signal) => sendWhatsAppText(target, String(address.to), text, signal),
      };
    },
  };
}
