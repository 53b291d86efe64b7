// GET and POST /integrations/whatsapp/webhook: Meta's subscription handshake, and deliveries that are
// checked, stored in the durable queue and acknowledged at once. The agent answers afterwards, from
// the worker. The POST route reads the raw bytes itself: the signature covers the body as sent.
import { formatZodIssues, type TEngineIntegration, ZWhatsAppWebhookPayload } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import express, { type RequestHandler, Router } from 'express';
import type pg from 'pg';
import { getSnapshot, type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
import { enqueueInboundMessages, type NewInboundMessage } from './inbound-queue.js';
import { equalsSecret, hasValidSignature } from './verify-webhook.js';

export const WHATSAPP_WEBHOOK_PATH = '/integrations/whatsapp/webhook';

/** Where deliveries go in database mode; absent with a config file. */
export type WhatsAppInbox = { pool: pg.Pool; wake: () => void };

const FILE_MODE_DETAIL =
  'WhatsApp messages are processed from a durable queue in PostgreSQL: run this engine with AGENT_ID and DATABASE_URL.';

function requireIntegrations(
  integrations: TEngineIntegration[],
  inbox: WhatsAppInbox | undefined,
): TEngineIntegration[] {
  const enabled = integrations.filter((integration) => integration.provider === 'WHATSAPP' && integration.enabled);
  if (enabled.length === 0) throw new AppError('not_found', 'This agent has no enabled WhatsApp integration.');
  if (inbox === undefined) throw new AppError('service_unavailable', FILE_MODE_DETAIL);
  return enabled;
}

function handleVerify(inbox: WhatsAppInbox | undefined): RequestHandler {
  return (req, res) => {
    const integrations = requireIntegrations(getSnapshot(res).config.integrations, inbox);
    const mode = req.query['hub.mode'];
    const token = req.query['hub.verify_token'];
    const challenge = req.query['hub.challenge'];
    const verified =
      mode === 'subscribe' &&
      typeof token === 'string' &&
      typeof challenge === 'string' &&
      integrations.some((integration) => equalsSecret(token, integration.config.verifyToken));
    if (!verified) throw new AppError('forbidden', 'The verification request does not match this webhook.');
    res.status(200).set('X-Content-Type-Options', 'nosniff').type('text/plain').send(challenge);
  };
}

/** Each message with the integration it reached: the one whose phone number id the change names. */
function routeMessages(
  payload: ReturnType<typeof ZWhatsAppWebhookPayload.parse>,
  integrations: TEngineIntegration[],
): { messages: NewInboundMessage[]; unrouted: number } {
  const messages: NewInboundMessage[] = [];
  let unrouted = 0;
  for (const entry of payload.entry) {
    for (const { value } of entry.changes) {
      const phoneNumberId = value.metadata?.phone_number_id;
      const integration =
        phoneNumberId === undefined
          ? integrations.length === 1
            ? integrations[0]
            : undefined
          : integrations.find((candidate) => candidate.config.phoneNumberId === phoneNumberId);
      // Status updates (sent, delivered, read) need no answer: acknowledged and skipped.
      for (const message of value.messages ?? []) {
        if (integration === undefined) {
          unrouted++;
          continue;
        }
        messages.push({
          integrationId: integration.id,
          providerMessageId: message.id,
          sender: message.from,
          payload: message,
        });
      }
    }
  }
  return { messages, unrouted };
}

function handleDelivery(inbox: WhatsAppInbox | undefined): RequestHandler {
  return async (req, res) => {
    const snapshot = getSnapshot(res);
    const integrations = requireIntegrations(snapshot.config.integrations, inbox);
    if (!Buffer.isBuffer(req.body)) {
      throw new AppError('unsupported_media_type', 'Webhook deliveries are application/json.');
    }
    const body = req.body;
    // With an app secret configured anywhere, every delivery must be signed by one of them.
    const secrets = integrations.flatMap((integration) => integration.config.appSecret ?? []);
    const signature = req.get('x-hub-signature-256');
    if (secrets.length > 0 && !secrets.some((secret) => hasValidSignature(body, signature, secret))) {
      throw new AppError('unauthorized', 'X-Hub-Signature-256 is missing or does not match the body.');
    }
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      throw new AppError('bad_request', 'The body is not valid JSON.');
    }
    const parsed = ZWhatsAppWebhookPayload.safeParse(json);
    if (!parsed.success) {
      throw new AppError('bad_request', 'The body is not a WhatsApp Cloud API webhook payload.', {
        errors: formatZodIssues(parsed.error),
      });
    }
    if (parsed.data.object === 'whatsapp_business_account') {
      const agentId = snapshot.config.agent.id;
      const { messages, unrouted } = routeMessages(parsed.data, integrations);
      if (unrouted > 0) req.log.warn({ unrouted }, 'WhatsApp messages for a phone number id no integration has');
      const stored = await enqueueInboundMessages((inbox as WhatsAppInbox).pool, agentId, messages);
      if (stored > 0) (inbox as WhatsAppInbox).wake();
      req.log.debug({ received: messages.length, stored }, 'WhatsApp delivery queued');
    }
    res.status(200).type('text/plain').send('EVENT_RECEIVED');
  };
}

export function whatsappRouter(source: SnapshotSource, inbox: WhatsAppInbox | undefined): Router {
  const router = Router();
  router.get(WHATSAPP_WEBHOOK_PATH, useSnapshot(source), handleVerify(inbox));
  router.post(
    WHATSAPP_WEBHOOK_PATH,
    useSnapshot(source),
    express.raw({ type: 'application/json', limit: '1mb' }),
    handleDelivery(inbox),
  );
  return router;
}
