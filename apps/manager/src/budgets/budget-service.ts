// Setting and removing budgets. A budget is part of what an agent's engine runs, so each write
// republishes the engine configs it changes in its own transaction (the publish protocol): an agent's
// budget its agent's, a workspace's budget every agent of the workspace.
import type { TBudget, TBudgetStatus } from '@agentplane/contracts';
import { inTransaction, Prisma, type Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { lockAgent } from '../agents/lock-agent.js';
import { publishEngineConfigs } from '../publishing/publish-engine-configs.js';
import type { ResourceRouteDependencies } from '../resources/resource-routes.js';
import { readBudgetStatus } from './budget-spend.js';
import { storedBudget } from './engine-budgets.js';

export type BudgetContext = Pick<
  ResourceRouteDependencies,
  'db' | 'box' | 'agentKeys' | 'prices' | 'enginePools' | 'publishMetrics' | 'versionRetention'
> & {
  workspaceId: string;
  /** The signed-in user making the request: the author of the versions its writes record. */
  authorId: string | null;
  now: () => number;
};

function noSuchAgent(): AppError {
  return new AppError('not_found', 'No such agent.');
}

function publish(ctx: BudgetContext, tx: Tx, agentIds: string[]) {
  return publishEngineConfigs(tx, {
    agentIds,
    box: ctx.box,
    agentKeys: ctx.agentKeys,
    prices: ctx.prices,
    poolUrls: ctx.enginePools.urls,
    metrics: ctx.publishMetrics,
    change: { cause: 'budget', authorId: ctx.authorId },
    versionRetention: ctx.versionRetention,
  });
}

export async function getAgentBudget(ctx: BudgetContext, agentId: string): Promise<TBudgetStatus> {
  const agent = await ctx.db.agent.findFirst({
    where: { id: agentId, workspaceId: ctx.workspaceId },
    select: { budget: true },
  });
  if (agent === null) throw noSuchAgent();
  return readBudgetStatus(ctx.db, { scope: 'agent', id: agentId }, storedBudget(agent.budget), new Date(ctx.now()));
}

/** Sets (or with null removes) the agent's budget; its engine applies it with the new config version. */
export async function setAgentBudget(ctx: BudgetContext, agentId: string, budget: TBudget | null): Promise<void> {
  await inTransaction(ctx.db, async (tx) => {
    // The lock every write to the agent takes first, so a concurrent PATCH cannot publish over this one.
    if ((await lockAgent(tx, ctx.workspaceId, agentId)) === undefined) throw noSuchAgent();
    await tx.agent.update({ where: { id: agentId }, data: { budget: budget ?? Prisma.DbNull } });
    await publish(ctx, tx, [agentId]);
  });
}

export async function getWorkspaceBudget(ctx: BudgetContext): Promise<TBudgetStatus> {
  const workspace = await ctx.db.workspace.findUniqueOrThrow({
    where: { id: ctx.workspaceId },
    select: { budget: true },
  });
  const scope = { scope: 'workspace' as const, id: ctx.workspaceId };
  return readBudgetStatus(ctx.db, scope, storedBudget(workspace.budget), new Date(ctx.now()));
}

/** Sets (or with null removes) the workspace's budget and republishes every agent of the workspace. */
export async function setWorkspaceBudget(ctx: BudgetContext, budget: TBudget | null): Promise<void> {
  await inTransaction(ctx.db, async (tx) => {
    // FOR UPDATE conflicts with the key-share lock an agent's insert takes on its workspace: an agent
    // created meanwhile either commits first (and is republished below) or reads this budget after it.
    await tx.$executeRaw`SELECT 1 FROM workspaces WHERE id = ${ctx.workspaceId}::uuid FOR UPDATE`;
    // Each agent's own lock (lock-agent.ts), in id order, so a concurrent PATCH cannot publish over this.
    const agents = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM agents WHERE workspace_id = ${ctx.workspaceId}::uuid ORDER BY id FOR NO KEY UPDATE`;
    await tx.workspace.update({ where: { id: ctx.workspaceId }, data: { budget: budget ?? Prisma.DbNull } });
    await publish(
      ctx,
      tx,
      agents.map((agent) => agent.id),
    );
  });
}
