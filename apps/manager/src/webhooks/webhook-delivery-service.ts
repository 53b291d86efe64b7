// An endpoint's delivery log, replays, and test events: what a workspace admin sees of and does with
// the queue the triggers and the worker fill and empty.
import { randomUUID } from 'node:crypto';
import {
  type TWebhookDelivery,
  type TWebhookDeliveryListQuery,
  WEBHOOK_MAX_PENDING_DELIVERIES,
  WEBHOOK_TEST_EVENT_TYPE,
} from '@agentplane/contracts';
import type {
  Db,
  Prisma,
  WebhookDeliveryModel as WebhookDelivery,
  WebhookDeliveryAttemptModel as WebhookDeliveryAttempt,
} from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { findEndpoint, type WebhookContext } from './webhook-endpoint-service.js';

type DeliveryRow = WebhookDelivery & { attemptsLog: WebhookDeliveryAttempt[] };

const WITH_ATTEMPTS = { attemptsLog: { orderBy: { attempt: 'asc' as const } } };

function toDelivery(row: DeliveryRow): TWebhookDelivery {
  return {
    id: row.id,
    endpoint_id: row.endpointId,
    message_id: row.messageId,
    event_type: row.eventType,
    payload: row.payload as Record<string, unknown>,
    status: row.status as TWebhookDelivery['status'],
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    last_status_code: row.lastStatusCode,
    last_latency_ms: row.lastLatencyMs,
    last_error: row.lastError,
    replay_of: row.replayOf,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    attempt_log: row.attemptsLog.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.startedAt.toISOString(),
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
    })),
  };
}

/**
 * A replay or a test event is refused while the endpoint holds as many undelivered deliveries as the
 * database's cap (webhook_endpoint_full, which the triggers apply by dropping): an admin is told, not
 * silently dropped.
 */
async function refuseWhenFull(db: Db, endpointId: string): Promise<void> {
  const [row] = await db.$queryRaw<{ full: boolean }[]>`SELECT webhook_endpoint_full(${endpointId}::uuid) AS full`;
  if (!row?.full) return;
  throw new AppError(
    'conflict',
    `This endpoint has ${WEBHOOK_MAX_PENDING_DELIVERIES} deliveries waiting to be sent, the most it holds; wait for them to succeed or fail.`,
    { type: 'webhook-deliveries-pending' },
  );
}

function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** The endpoint's deliveries, newest first. */
export async function listDeliveries(
  ctx: WebhookContext,
  endpointId: string,
  query: TWebhookDeliveryListQuery,
): Promise<{ items: TWebhookDelivery[]; total: number }> {
  await findEndpoint(ctx.db, ctx.workspaceId, endpointId);
  const where = { endpointId, ...(query.status === undefined ? {} : { status: query.status }) };
  const [rows, total] = await Promise.all([
    ctx.db.webhookDelivery.findMany({
      where,
      include: WITH_ATTEMPTS,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: query.limit,
      skip: query.offset,
    }),
    ctx.db.webhookDelivery.count({ where }),
  ]);
  return { items: rows.map(toDelivery), total };
}

/**
 * Sends a delivery's event again as a new delivery with the same webhook-id and body (receivers that
 * de-duplicate by id see one event), with a fresh day of retries.
 */
export async function replayDelivery(ctx: WebhookContext, endpointId: string, deliveryId: string) {
  await findEndpoint(ctx.db, ctx.workspaceId, endpointId);
  const original = await ctx.db.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId } });
  if (original === null) throw new AppError('not_found', 'No delivery with this id for this endpoint');
  await refuseWhenFull(ctx.db, endpointId);
  const row = await ctx.db.webhookDelivery.create({
    data: {
      endpointId,
      messageId: original.messageId,
      eventType: original.eventType,
      payload: original.payload as Prisma.InputJsonValue,
      replayOf: original.id,
    },
    include: WITH_ATTEMPTS,
  });
  return toDelivery(row);
}

/** Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to. */
export async function sendTestEvent(ctx: WebhookContext, endpointId: string): Promise<TWebhookDelivery> {
  const endpoint = await findEndpoint(ctx.db, ctx.workspaceId, endpointId);
  await refuseWhenFull(ctx.db, endpoint.id);
  const row = await ctx.db.webhookDelivery.create({
    data: {
      endpointId: endpoint.id,
      messageId: newMessageId(),
      eventType: WEBHOOK_TEST_EVENT_TYPE,
      payload: {
        type: WEBHOOK_TEST_EVENT_TYPE,
        timestamp: new Date().toISOString(),
        data: { endpoint_id: endpoint.id, workspace_id: ctx.workspaceId },
      },
    },
    include: WITH_ATTEMPTS,
  });
  return toDelivery(row);
}
