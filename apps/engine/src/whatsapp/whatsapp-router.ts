// GET and POST /integrations/whatsapp/webhook: Meta's subscription handshake, and deliveries that are
// checked (signature, size), stored in the durable queue and acknowledged at once. The agent answers
// afterwards, from the worker. The POST route reads the raw bytes itself: the signature covers the body
// as sent.
import {
  formatZodIssues,
  type TEngineIntegration,
  type TWhatsAppWebhookPayload,
  ZWhatsAppWebhookPayload,
} from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import express, { type RequestHandler, Router } from 'express';
import type pg from 'pg';
import { getSnapshot, type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
import { authenticateDelivery } from './delivery-auth.js';
import { enqueueInboundMessages } from './inbound-queue.js';
import { MAX_DELIVERY_ITEMS, routeDelivery } from './route-delivery.js';
import { equalsSecret } from './verify-webhook.js';

export const WHATSAPP_WEBHOOK_PATH = '/integrations/whatsapp/webhook';
/** The handshake's query parameter that carries the integration's verify token, a secret. */
export const WHATSAPP_VERIFY_TOKEN_PARAM = 'hub.verify_token';

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
    const token = req.query[WHATSAPP_VERIFY_TOKEN_PARAM];
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

function parseDelivery(body: Buffer): TWhatsAppWebhookPayload {
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
  return parsed.data;
}

function handleDelivery(inbox: WhatsAppInbox | undefined): RequestHandler {
  return async (req, res) => {
    const snapshot = getSnapshot(res);
    const integrations = requireIntegrations(snapshot.config.integrations, inbox);
    if (!Buffer.isBuffer(req.body)) {
      throw new AppError('unsupported_media_type', 'Webhook deliveries are application/json.');
    }
    // Parsed before the signature is checked: the payload names the integration whose secret signs it.
    const delivery = routeDelivery(parseDelivery(req.body), integrations);
    const unsigned = authenticateDelivery(req.body, req.get('x-hub-signature-256'), delivery.targets, integrations);
    if (delivery.items > MAX_DELIVERY_ITEMS) {
      throw new AppError(
        'payload_too_large',
        `A delivery may carry at most ${MAX_DELIVERY_ITEMS} messages and statuses; this one has ${delivery.items}.`,
      );
    }
    if (unsigned.length > 0) {
      req.log.warn(
        { integration_ids: unsigned.map((integration) => integration.id) },
        'WhatsApp delivery accepted without a signature: the integration sets allowUnsignedDeliveries (unsafe)',
      );
    }
    if (delivery.unrouted > 0) {
      req.log.warn({ unrouted: delivery.unrouted }, 'WhatsApp messages for a phone number id no integration has');
    }
    const stored = await enqueueInboundMessages(
      (inbox as WhatsAppInbox).pool,
      snapshot.config.agent.id,
      delivery.messages,
    );
    if (stored > 0) (inbox as WhatsAppInbox).wake();
    req.log.debug({ received: delivery.messages.length, stored }, 'WhatsApp delivery queued');
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
