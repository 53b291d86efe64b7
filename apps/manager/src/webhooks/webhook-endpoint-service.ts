// A workspace's webhook endpoints: CRUD, the cap on how many, and secret rotation. The URL is the
// tenant's: a literal refused address is a 422 here, and the delivery worker checks every address it
// connects to.
import type {
  TPaginationQuery,
  TWebhookEndpoint,
  TWebhookEndpointInput,
  TWebhookEndpointWithSecret,
  TWebhookEventType,
} from '@agentplane/contracts';
import {
  type Db,
  inTransaction,
  type SecretBox,
  type Tx,
  type WebhookEndpointModel as WebhookEndpoint,
} from '@agentplane/db';
import { AppError, type EgressAllowList } from '@agentplane/server-kit';
import { refusePrivateUrls } from '../egress/refuse-private-urls.js';
import { refusePastWorkspaceCap } from '../workspaces/workspace-cap.js';
import { generateWebhookSecret, hintOfSecret } from './webhook-secret.js';

export const MAX_WEBHOOKS_PER_WORKSPACE_DEFAULT = 20;

export type WebhookContext = {
  db: Db;
  box: SecretBox;
  egressAllow: EgressAllowList;
  workspaceId: string;
  maxEndpoints: number;
};

export const WEBHOOK_NOT_FOUND = 'No webhook endpoint with this id in the workspace';

function toEndpoint(row: WebhookEndpoint, box: SecretBox): TWebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes as TWebhookEventType[],
    include_content: row.includeContent,
    enabled: row.enabled,
    secret_hint: hintOfSecret(box.open(row.secret)),
    dropped_events: Number(row.droppedEvents),
    last_dropped_at: row.lastDroppedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function withSecret(row: WebhookEndpoint, box: SecretBox, secret: string): TWebhookEndpointWithSecret {
  return { ...toEndpoint(row, box), secret };
}

function columnsOf(input: TWebhookEndpointInput) {
  return {
    url: input.url,
    description: input.description,
    eventTypes: input.event_types,
    includeContent: input.include_content,
    enabled: input.enabled,
  };
}

/** The endpoint, if it is the workspace's: an id of another workspace is as unknown as a made-up one. */
export async function findEndpoint(db: Db | Tx, workspaceId: string, id: string): Promise<WebhookEndpoint> {
  const row = await db.webhookEndpoint.findFirst({ where: { id, workspaceId } });
  if (row === null) throw new AppError('not_found', WEBHOOK_NOT_FOUND);
  return row;
}

export async function listEndpoints(
  ctx: WebhookContext,
  page: TPaginationQuery,
): Promise<{ items: TWebhookEndpoint[]; total: number }> {
  const where = { workspaceId: ctx.workspaceId };
  const [rows, total] = await Promise.all([
    ctx.db.webhookEndpoint.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.limit,
      skip: page.offset,
    }),
    ctx.db.webhookEndpoint.count({ where }),
  ]);
  return { items: rows.map((row) => toEndpoint(row, ctx.box)), total };
}

export async function getEndpoint(ctx: WebhookContext, id: string): Promise<TWebhookEndpoint> {
  return toEndpoint(await findEndpoint(ctx.db, ctx.workspaceId, id), ctx.box);
}

export async function createEndpoint(
  ctx: WebhookContext,
  input: TWebhookEndpointInput,
): Promise<TWebhookEndpointWithSecret> {
  refusePrivateUrls([{ path: 'url', url: input.url }], ctx.egressAllow);
  const secret = generateWebhookSecret();
  const row = await inTransaction(ctx.db, async (tx) => {
    await refusePastWorkspaceCap(tx, ctx.workspaceId, {
      max: ctx.maxEndpoints,
      count: (locked) => locked.webhookEndpoint.count({ where: { workspaceId: ctx.workspaceId } }),
      noun: 'webhook endpoints',
      setting: 'MAX_WEBHOOKS_PER_WORKSPACE',
      type: 'webhooks-per-workspace',
    });
    return tx.webhookEndpoint.create({
      data: { ...columnsOf(input), workspaceId: ctx.workspaceId, secret: ctx.box.seal(secret) },
    });
  });
  return withSecret(row, ctx.box, secret);
}

export async function replaceEndpoint(
  ctx: WebhookContext,
  id: string,
  input: TWebhookEndpointInput,
): Promise<TWebhookEndpoint> {
  refusePrivateUrls([{ path: 'url', url: input.url }], ctx.egressAllow);
  const { count } = await ctx.db.webhookEndpoint.updateMany({
    where: { id, workspaceId: ctx.workspaceId },
    data: columnsOf(input),
  });
  if (count === 0) throw new AppError('not_found', WEBHOOK_NOT_FOUND);
  return getEndpoint(ctx, id);
}

export async function deleteEndpoint(ctx: WebhookContext, id: string): Promise<void> {
  const { count } = await ctx.db.webhookEndpoint.deleteMany({ where: { id, workspaceId: ctx.workspaceId } });
  if (count === 0) throw new AppError('not_found', WEBHOOK_NOT_FOUND);
}

/**
 * A new secret, shown this once. With `previousValidSeconds`, the old one keeps signing beside it (the
 * worker sends both signatures) until then, so a receiver can switch without refusing a delivery.
 */
export async function rotateEndpointSecret(
  ctx: WebhookContext,
  id: string,
  previousValidSeconds: number,
): Promise<TWebhookEndpointWithSecret> {
  const secret = generateWebhookSecret();
  const row = await inTransaction(ctx.db, async (tx) => {
    // Locked before it is read: two rotations at once would otherwise both keep the same old secret,
    // and the one the first caller was shown would stop signing at once.
    await tx.$executeRaw`
      SELECT 1 FROM webhook_endpoints WHERE id = ${id}::uuid AND workspace_id = ${ctx.workspaceId}::uuid FOR UPDATE`;
    const current = await findEndpoint(tx, ctx.workspaceId, id);
    const keepsOld = previousValidSeconds > 0;
    return tx.webhookEndpoint.update({
      where: { id: current.id },
      data: {
        secret: ctx.box.seal(secret),
        previousSecret: keepsOld ? current.secret : null,
        previousSecretExpiresAt: keepsOld ? new Date(Date.now() + previousValidSeconds * 1000) : null,
      },
    });
  });
  return withSecret(row, ctx.box, secret);
}
