// Create, read, update and delete for every managed resource kind. agent_count is read in the same
// query as the resource (resource-reads), and a PATCH republishes the engine config of every agent that uses it.
import {
  type AgentKeyring,
  type Db,
  inTransaction,
  isForeignKeyViolation,
  type SecretBox,
  type Tx,
} from '@agentplane/db';
import { AppError, type EgressAllowList } from '@agentplane/server-kit';
import { refusePrivateUrls } from '../egress/refuse-private-urls.js';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';
import type { PublishMetrics } from '../metrics/manager-metrics.js';
import type { OperatorPolicy } from '../operator-policy/operator-policy.js';
import { publishEngineConfigs } from '../publishing/publish-engine-configs.js';
import { keepMaskedSecrets } from '../secrets/keep-masked-secrets.js';
import { type SecretsView, showSecret } from '../secrets/secrets-view.js';
import type { ModelPrices } from '../usage/model-prices.js';
import type { ResourceKind, ResourceRow, ResourceUse } from './resource-kinds.js';
import { loadResource, lockResource, readResource, readResourcePage } from './resource-reads.js';

export type ResourceContext = {
  db: Db;
  box: SecretBox;
  policy: OperatorPolicy;
  egressAllow: EgressAllowList;
  agentKeys: AgentKeyring;
  prices: ModelPrices;
  enginePools: EnginePoolSettings;
  publishMetrics?: PublishMetrics | undefined;
  versionRetention: number;
  workspaceId: string;
  /** The signed-in user making the request: the author of the versions its writes record. */
  authorId: string | null;
  /** How responses show secrets: to the caller's role, or as asked. */
  secrets: SecretsView;
};

function toResponse<T>(kind: ResourceKind<T>, row: ResourceRow, ctx: ResourceContext) {
  return {
    id: row.id,
    name: row.name,
    [kind.key]: kind.mapSecrets(kind.fromRow(row, ctx.box), showSecret(ctx.secrets)),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    agent_count: row.agentCount,
  };
}

function notFound<T>(kind: ResourceKind<T>): AppError {
  return new AppError('not_found', `No such ${kind.label}.`);
}

export async function listResources<T>(
  kind: ResourceKind<T>,
  ctx: ResourceContext,
  page: { limit: number; offset: number },
) {
  const where = { workspaceId: ctx.workspaceId };
  const [rows, total] = await Promise.all([
    readResourcePage(ctx.db, kind, ctx.workspaceId, page),
    kind.delegate(ctx.db).count({ where }),
  ]);
  return { items: rows.map((row) => toResponse(kind, row, ctx)), total };
}

export async function getResource<T>(kind: ResourceKind<T>, ctx: ResourceContext, id: string) {
  const row = await loadResource(ctx.db, kind, ctx.workspaceId, id);
  if (!row) throw notFound(kind);
  return toResponse(kind, row, ctx);
}

/** What a tenant may not configure (422), checked before anything is written. */
function checkWritable<T>(kind: ResourceKind<T>, ctx: ResourceContext, typed: T): void {
  refusePrivateUrls(kind.tenantUrls(typed), ctx.egressAllow);
  kind.checkAllowed?.(typed, ctx.policy);
}

export async function createResource<T>(kind: ResourceKind<T>, ctx: ResourceContext, body: { name: string; typed: T }) {
  checkWritable(kind, ctx, body.typed);
  // Nothing is stored yet, so any mask is refused.
  const typed = keepMaskedSecrets({ sent: body.typed, stored: undefined, mapSecrets: kind.mapSecrets, at: [kind.key] });
  const row = await withReferencesLocked(kind, ctx, typed, (tx) =>
    kind.delegate(tx).create({
      data: { workspaceId: ctx.workspaceId, name: body.name, ...kind.toColumns(typed, ctx.box) },
    }),
  );
  return toResponse(kind, { ...row, agentCount: 0 }, ctx);
}

/** `write` in a transaction that first checks and locks what the typed object references (lockReferences). */
async function withReferencesLocked<T, R>(
  kind: ResourceKind<T>,
  ctx: ResourceContext,
  typed: T,
  write: (tx: Tx) => Promise<R>,
): Promise<R> {
  const { lockReferences } = kind;
  if (lockReferences === undefined) return write(ctx.db);
  return inTransaction(ctx.db, async (tx) => {
    await lockReferences(tx, ctx.workspaceId, typed);
    return write(tx);
  });
}

/** A full replacement; the agents that use the resource get their new engine config in the same transaction. */
export async function updateResource<T>(
  kind: ResourceKind<T>,
  ctx: ResourceContext,
  id: string,
  body: { name: string; typed: T },
) {
  checkWritable(kind, ctx, body.typed);
  return inTransaction(ctx.db, async (tx) => {
    // This row lock orders the update against agent writes that attach the resource (they lock it FOR SHARE).
    const existing = await lockResource(tx, kind, ctx.workspaceId, id);
    if (!existing) throw notFound(kind);
    const typed = keepMaskedSecrets({
      sent: body.typed,
      stored: kind.fromRow(existing, ctx.box),
      mapSecrets: kind.mapSecrets,
      at: [kind.key],
    });
    await kind.lockReferences?.(tx, ctx.workspaceId, typed);
    await kind.checkForAgents?.(tx, id, typed);
    await kind.delegate(tx).update({ where: { id }, data: { name: body.name, ...kind.toColumns(typed, ctx.box) } });
    const applying = kind.agentsApplying ?? kind.agentsReferencing;
    const agents = await tx.agent.findMany({ where: applying(id), select: { id: true } });
    await publishEngineConfigs(tx, {
      agentIds: agents.map((agent) => agent.id),
      box: ctx.box,
      agentKeys: ctx.agentKeys,
      prices: ctx.prices,
      poolUrls: ctx.enginePools.urls,
      metrics: ctx.publishMetrics,
      change: { cause: 'resource', authorId: ctx.authorId },
      versionRetention: ctx.versionRetention,
    });
    const row = await readResource(tx, kind, ctx.workspaceId, id);
    if (!row) throw notFound(kind);
    return toResponse(kind, row, ctx);
  });
}

// Enough for a person to find the agents; the rest are counted.
const AGENTS_NAMED_MAX = 5;

/** `count` agents reference it (`names` the first of them); `others`: its other uses (ResourceKind.otherUses). */
type References = { count: number; names: string[]; others: ResourceUse[] };

const isReferenced = ({ count, others }: References) => count > 0 || others.length > 0;

function stillReferenced<T>(kind: ResourceKind<T>, { count, names, others }: References): AppError {
  const more = count > names.length ? ` and ${count - names.length} more` : '';
  const named = names.length > 0 ? ` (${names.map((name) => JSON.stringify(name)).join(', ')}${more})` : '';
  const byAgents: ResourceUse[] =
    count > 0
      ? [
          {
            what: `is used by ${count} agent${count === 1 ? '' : 's'}${named}`,
            undo: `detach it from ${count === 1 ? 'that agent' : 'them'}`,
          },
        ]
      : [];
  const uses = [...byAgents, ...others];
  // The foreign key refused the delete for an attach that is not visible yet.
  if (uses.length === 0) return new AppError('conflict', `This ${kind.label} was attached meanwhile; detach it first.`);
  const whats = uses.map((use) => use.what).join(' and ');
  const undos = uses.map((use) => use.undo).join(' and ');
  return new AppError('conflict', `This ${kind.label} ${whats}; ${undos} first.`);
}

/**
 * Refused with 409 while any agent references it (or, for a guardrail, while it is a workspace default);
 * the RESTRICT foreign keys make that hold under races too.
 */
export async function deleteResource<T>(kind: ResourceKind<T>, ctx: ResourceContext, id: string): Promise<void> {
  const readReferences = async (): Promise<References> => {
    const where = kind.agentsReferencing(id);
    const [count, agents, others] = await Promise.all([
      ctx.db.agent.count({ where }),
      ctx.db.agent.findMany({
        where,
        select: { name: true },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        take: AGENTS_NAMED_MAX,
      }),
      kind.otherUses?.(ctx.db, id) ?? [],
    ]);
    return { count, names: agents.map((agent) => agent.name), others };
  };
  const references = await readReferences();
  if (isReferenced(references)) {
    const exists = await kind.delegate(ctx.db).count({ where: { id, workspaceId: ctx.workspaceId } });
    throw exists ? stillReferenced(kind, references) : notFound(kind);
  }
  try {
    const { count } = await kind.delegate(ctx.db).deleteMany({ where: { id, workspaceId: ctx.workspaceId } });
    if (count === 0) throw notFound(kind);
  } catch (error) {
    // Something attached it between the count and the delete.
    if (isForeignKeyViolation(error)) throw stillReferenced(kind, await readReferences());
    throw error;
  }
}
