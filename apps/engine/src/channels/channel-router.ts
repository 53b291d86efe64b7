// POST /integrations/{slug}/webhook/{integrationId}: one route for every provider's deliveries. The
// integration id picks the integration, and so the secret its adapter checks the delivery with; the
// adapter reads the delivery into items, which are queued once each (a repeat of a provider id is not
// queued again) and answered afterwards by the worker. The route answers what the provider expects.
import { JSON_MAX_DEPTH } from '@agentplane/contracts';
import { AppError, refuseUnstorableBody } from '@agentplane/server-kit';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { AgentDb } from '../database/agent-db.js';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import { publicOrigin } from '../http/public-origin.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import type { ChannelAdapters } from './channel-adapters.js';
import { enqueueInboundMessages } from './inbound-queue.js';
import { providerName } from './provider-names.js';
import { queuedMessageOf } from './queued-item.js';

/** Where deliveries go: absent when the engine has no database (a config file without DATABASE_URL). */
export type ChannelInbox = { pool: AgentDb; wake: () => void };

/**
 * Most items one delivery may become. Providers send one event per delivery or batch a few; a larger
 * one is refused (413) before anything is queued, so one request cannot make the engine write without bound.
 */
export const MAX_DELIVERY_ITEMS = 100;

export const NO_QUEUE_DETAIL =
  "Channel messages are processed from a durable queue in PostgreSQL, and this engine has no database: set DATABASE_URL to the agent's engine credentials (with ENGINE_CONFIG_FILE, or with AGENT_ID and AGENT_KEY).";

const ZWebhookParams = z.object({
  slug: z
    .string()
    .meta({ description: 'The provider: `slack`, `telegram`, `discord`, `teams`, `google-chat`, `whatsapp`' }),
  integrationId: z.string().meta({ description: "The id of one of the agent's integrations of that provider" }),
});

export const CHANNEL_ROUTES = {
  deliver: {
    method: 'post',
    path: '/integrations/:slug/webhook/:integrationId',
    operationId: 'receiveChannelDelivery',
    summary:
      "A messaging provider's delivery for one integration: checked the provider's way, queued, and answered as the provider expects",
    tag: 'channels',
    access: { kind: 'webhook', body: 'raw-any' },
    params: ZWebhookParams,
    handlerBody: { contentType: 'application/json', schema: z.unknown() },
    responses: {
      200: { description: "The provider's expected answer (a challenge, an acknowledgement)", schema: z.unknown() },
    },
    problems: {
      401: "The delivery is unsigned, stale or not signed by the integration's secret",
      404: 'No enabled integration of that provider has this id',
      413: `A body over 1 MiB, or more than ${MAX_DELIVERY_ITEMS} messages`,
      422: 'The delivery holds text PostgreSQL cannot store (NUL, a lone surrogate) or nesting too deep',
      503: 'The engine has no database to queue messages in',
    },
  },
} satisfies Record<string, EngineRouteSpec>;

/** The adapter of the path's provider and the agent's enabled integration of it with the path's id; else 404. */
function targetOf(req: Request, res: Response, adapters: ChannelAdapters) {
  const { slug, integrationId } = req.params as { slug: string; integrationId: string };
  const adapter = adapters.bySlug(slug);
  const integration = getSnapshot(res).config.integrations.find(
    (candidate) => candidate.id === integrationId && candidate.provider === adapter?.provider && candidate.enabled,
  );
  if (adapter === undefined || integration === undefined) {
    throw new AppError('not_found', 'This agent has no enabled integration of that provider with this id.');
  }
  // The integration is of the adapter's provider (found by it): the pair is typed as any provider's.
  return { adapter, integration: integration as never };
}

function handleDelivery(
  adapters: ChannelAdapters,
  inbox: ChannelInbox | undefined,
  configuredOrigin: string | undefined,
) {
  return async (req: Request, res: Response): Promise<void> => {
    const { adapter, integration } = targetOf(req, res, adapters);
    if (inbox === undefined) throw new AppError('service_unavailable', NO_QUEUE_DETAIL);
    const received = await adapter.receive(
      {
        rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
        header: (name) => req.get(name),
        url: `${publicOrigin(req, configuredOrigin)}${req.originalUrl}`,
        now: Date.now(),
      },
      integration,
    );
    const { items, answer } = received;
    if (items.length > MAX_DELIVERY_ITEMS) {
      throw new AppError(
        'payload_too_large',
        `A delivery may carry at most ${MAX_DELIVERY_ITEMS} messages; this one has ${items.length}.`,
      );
    }
    // Checked or not, what PostgreSQL cannot store is refused before anything is queued.
    refuseUnstorableBody(items, { maxDepth: JSON_MAX_DEPTH });
    const agentId = getSnapshot(res).config.agent.id;
    const stored = await enqueueInboundMessages(
      inbox.pool,
      agentId,
      items.map((item) => queuedMessageOf(integration, item)),
    );
    if (stored > 0) inbox.wake();
    req.log.debug({ received: items.length, stored }, `${providerName(adapter.provider)} delivery queued`);
    res.status(answer.status).type(answer.contentType).send(answer.body);
  };
}

export function addChannelRoutes(
  api: EngineApi,
  options: { adapters: ChannelAdapters; inbox: ChannelInbox | undefined; publicOrigin: string | undefined },
): void {
  const deliver = handleDelivery(options.adapters, options.inbox, options.publicOrigin);
  api.add(CHANNEL_ROUTES.deliver, (_input, req, res) => deliver(req, res));
}
