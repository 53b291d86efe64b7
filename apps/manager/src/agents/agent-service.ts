import {
  mapAgentConfigSecrets,
  mapEngineConfigSecrets,
  type TAgent,
  type TAgentCreate,
  type TAgentListItem,
  type TDeployment,
  type TPublishedEngineConfig,
} from '@agentplane/contracts';
import {
  type AgentKeyring,
  type Db,
  dropEngineRole,
  type EngineRoleSettings,
  inTransaction,
  isForeignKeyViolation,
  placeAgentRole,
  provisionEngineRole,
  type SecretBox,
  type Tx,
} from '@agentplane/db';
import { AppError, type EgressAllowList } from '@agentplane/server-kit';
import { describeCallersOf } from '../agent-calls/callee-references.js';
import { refusePrivateUrls, type TenantUrl } from '../egress/refuse-private-urls.js';
import { columnsOf, poolOf } from '../engine-pools/deployments.js';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';
import { refuseJudgesWithoutModel } from '../guardrails/model-judges.js';
import type { PublishMetrics } from '../metrics/manager-metrics.js';
import { checkAgentAllowed, type OperatorPolicy } from '../operator-policy/operator-policy.js';
import { notifyEngines, publishEngineConfigs } from '../publishing/publish-engine-configs.js';
import { readAgentsWithResources } from '../publishing/read-agents-with-resources.js';
import { keepMaskedSecrets } from '../secrets/keep-masked-secrets.js';
import { type SecretsView, showSecret } from '../secrets/secrets-view.js';
import type { ModelPrices } from '../usage/model-prices.js';
import type { VersionChange } from '../versions/record-agent-versions.js';
import { deploymentForCreate, deploymentForUpdate, refuseEngineUrlOnPool } from './agent-placement.js';
import { lockReferencedResources } from './agent-references.js';
import {
  openConfig,
  publishedOf,
  storedConfigOf,
  toAgentResponse,
  WITH_LINKS,
  WITH_LINKS_AND_VERSION,
} from './agent-response.js';
import { refuseAgentPastCap } from './agents-per-workspace.js';
import { lockAgent } from './lock-agent.js';
import { refuseManagerOrigin } from './refuse-manager-origin.js';

export type AgentContext = {
  db: Db;
  box: SecretBox;
  policy: OperatorPolicy;
  egressAllow: EgressAllowList;
  agentKeys: AgentKeyring;
  prices: ModelPrices;
  engineRoles: EngineRoleSettings;
  /** The operator's pools (ENGINE_POOLS) and default placement (DEFAULT_ENGINE_POOL). */
  enginePools: EnginePoolSettings;
  /** The operator's cap on a workspace's agents (MAX_AGENTS_PER_WORKSPACE). */
  maxAgentsPerWorkspace: number;
  publishMetrics?: PublishMetrics | undefined;
  workspaceId: string;
  /** How responses show secrets, in the agent's config and in its engine_config: to the caller's role, or as asked. */
  secrets: SecretsView;
  /** The origins the manager answers on, which no engine_url may name. */
  managerOrigins: readonly string[];
  /** The signed-in user making the request: the author of the versions its writes record. */
  authorId: string | null;
  /** AGENT_VERSION_RETENTION: how many of an agent's newest versions are kept. */
  versionRetention: number;
};

/** Which version an update restores, and why: a rollback (versions/version-service.ts). */
export type Restoring = { version: number; message?: string | undefined };

/** The model's baseUrl: the one URL of an agent's own config that its engine connects to. */
function tenantUrlsOf(body: TAgentCreate): TenantUrl[] {
  return body.framework === 'LLM' ? [{ path: 'agent.model.baseUrl', url: body.agent.model.baseUrl }] : [];
}

/** What a tenant may not configure (422), checked before anything is written. */
function checkWritable(body: TAgentCreate, ctx: AgentContext): void {
  refusePrivateUrls(tenantUrlsOf(body), ctx.egressAllow);
  refuseManagerOrigin(body.engine_url, ctx.managerOrigins);
  checkAgentAllowed(body, ctx.policy);
}

/** The body with each mask of a secret replaced by the stored secret it stands for (a 422 for any other mask). */
function withMaskedSecretsKept(
  body: TAgentCreate,
  stored: { framework: string; config: unknown } | undefined,
  box: SecretBox,
): TAgentCreate {
  const agent = keepMaskedSecrets<TAgentCreate['agent']>({
    sent: body.agent,
    // A config of another framework holds no secret of this one.
    stored:
      stored?.framework === body.framework
        ? mapAgentConfigSecrets(stored.framework, stored.config as TAgentCreate['agent'], box.open)
        : undefined,
    mapSecrets: (config, transform) => mapAgentConfigSecrets(body.framework, config, transform),
    at: ['agent'],
  });
  return { ...body, agent } as TAgentCreate;
}

/** Checks (422) and locks FOR SHARE what the agent references, then what its guardrails need of it. */
async function lockReferences(tx: Tx, ctx: AgentContext, body: TAgentCreate): Promise<void> {
  await lockReferencedResources(tx, ctx.workspaceId, body.resources);
  await refuseJudgesWithoutModel(tx, {
    workspaceId: ctx.workspaceId,
    framework: body.framework,
    guardrailIds: body.resources.guardrail_ids,
  });
}

export function notFound(): AppError {
  return new AppError('not_found', 'No such agent.');
}

/** What a write did: the agent it wrote, and whether it moved the agent to another placement. */
type Written = { agentId: string; moved: boolean };

async function writeAndPublish(
  ctx: AgentContext,
  change: Omit<VersionChange, 'authorId'>,
  write: (tx: Tx) => Promise<Written>,
): Promise<TAgent> {
  try {
    return await inTransaction(ctx.db, async (tx) => {
      const { agentId, moved } = await write(tx);
      const published = await publishEngineConfigs(tx, {
        agentIds: [agentId],
        box: ctx.box,
        agentKeys: ctx.agentKeys,
        prices: ctx.prices,
        poolUrls: ctx.enginePools.urls,
        metrics: ctx.publishMetrics,
        // The engines of both placements read the row again, whatever it holds; a rollback is a new
        // version even when it restores what is published now.
        republishUnchanged: moved || change.cause === 'rollback',
        change: { ...change, authorId: ctx.authorId },
        versionRetention: ctx.versionRetention,
      });
      const [agent] = await readAgentsWithResources(tx, [agentId]);
      if (!agent) throw new AppError('internal', 'The agent written is not there to read back.');
      const config = published.get(agentId);
      if (!config) throw new AppError('internal', 'The engine config was not published.');
      return toAgentResponse(agent, config, ctx);
    });
  } catch (error) {
    // The FOR SHARE locks make this unreachable in practice; the foreign keys are the last word.
    if (isForeignKeyViolation(error)) {
      throw new AppError('validation_failed', 'A referenced resource was deleted meanwhile; try again.');
    }
    throw error;
  }
}

/**
 * What a create and a full replacement both write: the agent's own columns (secrets sealed), its
 * placement and its links. A pooled agent stores no engine_url: its pool's is derived on every read.
 */
function agentData(body: TAgentCreate, deployment: TDeployment, box: SecretBox) {
  return {
    name: body.name,
    description: body.description ?? null,
    framework: body.framework,
    config: mapAgentConfigSecrets(body.framework, body.agent, box.seal),
    ssoId: body.resources.sso_id,
    engineUrl: deployment.mode === 'pool' ? null : (body.engine_url ?? null),
    ...columnsOf(deployment),
    observabilityId: body.resources.observability_id,
    integrations: { create: body.resources.integration_ids.map((integrationId) => ({ integrationId })) },
    mcpServers: { create: body.resources.mcp_server_ids.map((mcpServerId) => ({ mcpServerId })) },
    guardrails: { create: body.resources.guardrail_ids.map((guardrailId) => ({ guardrailId })) },
  };
}

export function createAgent(ctx: AgentContext, body: TAgentCreate): Promise<TAgent> {
  checkWritable(body, ctx);
  const kept = withMaskedSecretsKept(body, undefined, ctx.box);
  return writeAndPublish(ctx, { cause: 'create', message: body.version_message }, async (tx) => {
    await refuseAgentPastCap(tx, ctx.workspaceId, ctx.maxAgentsPerWorkspace);
    const deployment = await deploymentForCreate(tx, ctx, body);
    refuseEngineUrlOnPool(ctx, deployment, body.engine_url, undefined);
    await lockReferences(tx, ctx, body);
    const agent = await tx.agent.create({
      data: { workspaceId: ctx.workspaceId, ...agentData(kept, deployment, ctx.box) },
      select: { id: true },
    });
    // The engine's role comes with the agent, in its transaction (CREATE ROLE is transactional), and
    // so does its grant to the pool that serves it: the pool may serve it from the commit on.
    await provisionEngineRole(tx, agent.id, ctx.engineRoles);
    await placeAgentRole(tx, agent.id, poolOf(deployment) ?? undefined);
    return { agentId: agent.id, moved: false };
  });
}

/**
 * A full replacement of the agent, its framework config and its resource links; with `restoring`, a
 * rollback to that version's spec (the body), checked as any update is.
 */
export function updateAgent(ctx: AgentContext, id: string, body: TAgentCreate, restoring?: Restoring): Promise<TAgent> {
  checkWritable(body, ctx);
  const change: Omit<VersionChange, 'authorId'> =
    restoring === undefined
      ? { cause: 'update', message: body.version_message }
      : { cause: 'rollback', message: restoring.message, rolledBackFrom: restoring.version };
  return writeAndPublish(ctx, change, async (tx) => {
    // The lock comes first, so the stored secrets a mask is matched against are the ones this write replaces.
    const existing = await lockAgent(tx, ctx.workspaceId, id);
    if (!existing) throw notFound();
    const { deployment, moved } = deploymentForUpdate(ctx, existing, body);
    refuseEngineUrlOnPool(ctx, deployment, body.engine_url, id);
    const kept = withMaskedSecretsKept(body, existing, ctx.box);
    await lockReferences(tx, ctx, body);
    await tx.agentIntegration.deleteMany({ where: { agentId: id } });
    await tx.agentMcpServer.deleteMany({ where: { agentId: id } });
    await tx.agentGuardrail.deleteMany({ where: { agentId: id } });
    await tx.agent.update({
      where: { id },
      data: agentData(kept, deployment, ctx.box),
    });
    // The old pool's SET ROLE for the agent fails from the commit on; the publish re-seals its config
    // with the new placement's key.
    if (moved) await placeAgentRole(tx, id, poolOf(deployment) ?? undefined);
    return { agentId: id, moved };
  });
}

export async function getAgent(ctx: AgentContext, id: string): Promise<TAgent> {
  const agent = await ctx.db.agent.findFirst({ where: { id, workspaceId: ctx.workspaceId }, include: WITH_LINKS });
  if (!agent) throw notFound();
  return toAgentResponse(agent, storedConfigOf(agent, ctx.agentKeys), ctx);
}

/** A page of agents; their engine configs only with `include: 'engine_config'`, so that a list stays small. */
export async function listAgents(
  ctx: AgentContext,
  page: { limit: number; offset: number; include?: 'engine_config' | undefined },
): Promise<{ items: TAgentListItem[]; total: number }> {
  const where = { workspaceId: ctx.workspaceId };
  const withConfigs = page.include === 'engine_config';
  const [agents, total] = await Promise.all([
    ctx.db.agent.findMany({
      where,
      include: withConfigs ? WITH_LINKS : WITH_LINKS_AND_VERSION,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: page.limit,
      skip: page.offset,
    }),
    ctx.db.agent.count({ where }),
  ]);
  const items = agents.map((agent) =>
    withConfigs
      ? toAgentResponse(agent, storedConfigOf(agent, ctx.agentKeys), ctx)
      : toAgentResponse(agent, { version: Number(publishedOf(agent).version) }, ctx),
  );
  return { items, total };
}

/** The agent's engine_configs row: what its engine runs, without the rest of the agent. */
export async function getEngineConfig(ctx: AgentContext, id: string): Promise<TPublishedEngineConfig> {
  const row = await ctx.db.engineConfig.findFirst({
    where: { agentId: id, workspaceId: ctx.workspaceId },
    include: { agent: { select: { deploymentPool: true } } },
  });
  if (!row) throw notFound();
  const placement = { agentId: row.agentId, pool: row.agent.deploymentPool };
  return {
    agent_id: row.agentId,
    version: Number(row.version),
    config: mapEngineConfigSecrets(openConfig(placement, row.config, ctx.agentKeys), showSecret(ctx.secrets)),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * Deleting the agent deletes its links and its engine_configs row (CASCADE), and its engine's role and
 * checkpoints; its engine then answers 503.
 */
export async function deleteAgent(ctx: AgentContext, id: string): Promise<void> {
  try {
    await inTransaction(ctx.db, async (tx) => {
      if (!(await lockAgent(tx, ctx.workspaceId, id))) throw notFound();
      const called = await describeCallersOf(tx, id);
      if (called) throw called;
      await tx.agent.deleteMany({ where: { id, workspaceId: ctx.workspaceId } });
      // Before the drop, which takes the agent's channel with its role.
      await notifyEngines(tx, [id]);
      await dropEngineRole(tx, id);
    });
  } catch (error) {
    // An MCP server came to call it between the check and the delete (mcp_servers.agent_id is RESTRICT).
    if (isForeignKeyViolation(error)) throw (await describeCallersOf(ctx.db, id)) ?? error;
    throw error;
  }
}
