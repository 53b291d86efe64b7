// GET and POST /integrations/whatsapp/webhook: Meta's subscription handshake, and deliveries that are
// checked (signature, size), stored in the durable queue and acknowledged at once. The agent answers
// afterwards, from the worker. The POST route reads the raw bytes itself: the signature covers the body
// as sent.
import { type TEngineIntegration, ZWhatsAppWebhookPayload } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ChannelInbox } from '../channels/channel-router.js';
import { enqueueInboundMessages } from '../channels/inbound-queue.js';
import { queuedMessageOf } from '../channels/queued-item.js';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { readWhatsAppDelivery } from './read-delivery.js';
import { MAX_DELIVERY_ITEMS } from './route-delivery.js';
import { equalsSecret } from './verify-webhook.js';
import { isWhatsApp, type WhatsAppIntegration } from './whatsapp-integration.js';

export const WHATSAPP_WEBHOOK_PATH = '/integrations/whatsapp/webhook';
/** The handshake's query parameter that carries the integration's verify token, a secret. */
export const WHATSAPP_VERIFY_TOKEN_PARAM = 'hub.verify_token';

const NO_QUEUE_DETAIL =
  "WhatsApp messages are processed from a durable queue in PostgreSQL, and this engine has no database: set DATABASE_URL to the agent's engine credentials (with ENGINE_CONFIG_FILE, or with AGENT_ID and AGENT_KEY).";

function enabledIntegrations(integrations: TEngineIntegration[]): WhatsAppIntegration[] {
  const enabled = integrations.filter(isWhatsApp).filter((integration) => integration.enabled);
  if (enabled.length === 0) throw new AppError('not_found', 'This agent has no enabled WhatsApp integration.');
  return enabled;
}

const NO_INTEGRATION = 'The agent has no enabled WhatsApp integration';

// A repeated parameter is no string: it is refused (403) as any handshake that does not match is.
const ZVerifyQuery = z.object({
  'hub.mode': z.unknown().optional().meta({ description: '`subscribe`' }),
  [WHATSAPP_VERIFY_TOKEN_PARAM]: z.unknown().optional().meta({ description: "The integration's verifyToken" }),
  'hub.challenge': z.unknown().optional().meta({ description: 'Sent back as the answer' }),
});

export const WHATSAPP_ROUTES = {
  verify: {
    method: 'get',
    path: WHATSAPP_WEBHOOK_PATH,
    operationId: 'verifyWhatsAppWebhook',
    summary: "Meta's subscription handshake: answers hub.challenge when hub.verify_token matches",
    tag: 'whatsapp',
    access: { kind: 'webhook' },
    query: ZVerifyQuery,
    responses: { 200: { description: 'hub.challenge', contentType: 'text/plain', schema: z.string() } },
    problems: { 403: 'The handshake does not match an enabled integration', 404: NO_INTEGRATION },
  },
  deliver: {
    method: 'post',
    path: WHATSAPP_WEBHOOK_PATH,
    operationId: 'receiveWhatsAppDelivery',
    summary: 'A WhatsApp Cloud API delivery: checked (signature, size), queued, and acknowledged at once',
    tag: 'whatsapp',
    access: { kind: 'webhook', body: 'raw' },
    handlerBody: { contentType: 'application/json', schema: ZWhatsAppWebhookPayload },
    responses: { 200: { description: '`EVENT_RECEIVED`', contentType: 'text/plain', schema: z.string() } },
    problems: {
      401: 'X-Hub-Signature-256 is missing or does not sign the body',
      404: NO_INTEGRATION,
      413: `A body over 1 MiB, or more than ${MAX_DELIVERY_ITEMS} messages and statuses`,
      415: 'A body that is not application/json',
      503: 'The engine has no database to queue messages in',
    },
  },
} satisfies Record<string, EngineRouteSpec>;

// The handshake needs no queue: Meta can be pointed at the engine before its database is set.
function handleVerify(req: Request, res: Response): void {
  const integrations = enabledIntegrations(getSnapshot(res).config.integrations);
  const mode = req.query['hub.mode'];
  const token = req.query[WHATSAPP_VERIFY_TOKEN_PARAM];
  const challenge = req.query['hub.challenge'];
  const verified =
    mode === 'subscribe' &&
    typeof token === 'string' &&
    typeof challenge === 'string' &&
    integrations.some((integration) => equalsSecret(token, integration.config.verifyToken));
  if (!verified) throw new AppError('forbidden', 'The verification request does not match this webhook.');
  res.status(200).set('X-Content-Type-Options', 'nosniff').type('text/plain').send(challenge);
}

function handleDelivery(inbox: ChannelInbox | undefined) {
  return async (req: Request, res: Response): Promise<void> => {
    const snapshot = getSnapshot(res);
    const integrations = enabledIntegrations(snapshot.config.integrations);
    if (inbox === undefined) throw new AppError('service_unavailable', NO_QUEUE_DETAIL);
    if (!Buffer.isBuffer(req.body)) {
      throw new AppError('unsupported_media_type', 'Webhook deliveries are application/json.');
    }
    const delivery = readWhatsAppDelivery(req.body, req.get('x-hub-signature-256'), integrations);
    const { unsigned } = delivery;
    if (unsigned.length > 0) {
      req.log.warn(
        { integration_ids: unsigned.map((integration) => integration.id) },
        'WhatsApp delivery accepted without a signature: the integration sets allowUnsignedDeliveries (unsafe)',
      );
    }
    if (delivery.unrouted > 0) {
      req.log.warn({ unrouted: delivery.unrouted }, 'WhatsApp messages for a phone number id no integration has');
    }
    const queued = delivery.messages.map(({ integration, item }) => queuedMessageOf(integration, item));
    const stored = await enqueueInboundMessages(inbox.pool, snapshot.config.agent.id, queued);
    if (stored > 0) inbox.wake();
    req.log.debug({ received: delivery.messages.length, stored }, 'WhatsApp delivery queued');
    res.status(200).type('text/plain').send('EVENT_RECEIVED');
  };
}

export function addWhatsAppRoutes(api: EngineApi, inbox: ChannelInbox | undefined): void {
  api.add(WHATSAPP_ROUTES.verify, (_input, req, res) => handleVerify(req, res));
  const deliver = handleDelivery(inbox);
  api.add(WHATSAPP_ROUTES.deliver, (_input, req, res) => deliver(req, res));
}
