// What publishing reads about agents: each agent with its resources and its published row. Prisma runs
// the relation queries of one `include` side by side, and inside a transaction they all share its one
// connection, where pg queues them behind a DeprecationWarning (pg 9 will refuse them). So each relation
// is its own query, one after the other, and the rows are joined here.
import type { Tx } from '@agentplane/db';

/** Rows grouped by `keyOf`, each group in the order of `rows`: one pass, however many agents share a resource. */
function groupBy<T>(rows: T[], keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(keyOf(row));
    if (group) group.push(row);
    else groups.set(keyOf(row), [row]);
  }
  return groups;
}

const groupByAgent = <T extends { agentId: string }>(rows: T[]) => groupBy(rows, (row) => row.agentId);

/** The resources that agents reference by a column of their own (at most one each), without repeats. */
function distinctIds<K extends string>(agents: Record<K, string | null>[], column: K): string[] {
  return [...new Set(agents.flatMap((agent) => agent[column] ?? []))];
}

function byId<T extends { id: string }>(rows: T[]): Map<string, T> {
  return new Map(rows.map((row) => [row.id, row]));
}

/** What a calling agent's config says of an agent it calls (publishing/agent-calls.ts). */
const CALLEE_COLUMNS = {
  id: true,
  name: true,
  description: true,
  engineUrl: true,
  deploymentMode: true,
  deploymentPool: true,
} as const;

/** The agents of `agentIds` in id order; resources in the order they were created, as configs list them. */
export async function readAgentsWithResources(tx: Tx, agentIds: string[]) {
  const where = { agentId: { in: agentIds } };
  const agents = await tx.agent.findMany({ where: { id: { in: agentIds } }, orderBy: { id: 'asc' } });
  const integrations = groupByAgent(
    await tx.agentIntegration.findMany({
      where,
      include: { integration: true },
      orderBy: [{ integration: { createdAt: 'asc' } }, { integrationId: 'asc' }],
    }),
  );
  const mcpServers = groupByAgent(
    await tx.agentMcpServer.findMany({
      where,
      include: { mcpServer: true },
      orderBy: [{ mcpServer: { createdAt: 'asc' } }, { mcpServerId: 'asc' }],
    }),
  );
  const guardrails = groupByAgent(
    await tx.agentGuardrail.findMany({
      where,
      include: { guardrail: true },
      orderBy: [{ guardrail: { createdAt: 'asc' } }, { guardrailId: 'asc' }],
    }),
  );
  const ssos = byId(await tx.ssoConfig.findMany({ where: { id: { in: distinctIds(agents, 'ssoId') } } }));
  const observabilities = byId(
    await tx.observabilityConfig.findMany({ where: { id: { in: distinctIds(agents, 'observabilityId') } } }),
  );
  const workspaces = byId(
    await tx.workspace.findMany({
      where: { id: { in: distinctIds(agents, 'workspaceId') } },
      select: { id: true, budget: true },
    }),
  );
  // Every agent of a workspace applies its defaults (guardrails/engine-guardrails.ts).
  const defaultGuardrails = groupBy(
    await tx.workspaceGuardrail.findMany({
      where: { workspaceId: { in: [...workspaces.keys()] } },
      include: { guardrail: true },
      orderBy: [{ guardrail: { createdAt: 'asc' } }, { guardrailId: 'asc' }],
    }),
    (link) => link.workspaceId,
  );
  const configs = new Map((await tx.engineConfig.findMany({ where })).map((row) => [row.agentId, row]));
  const callees = byId(
    await tx.agent.findMany({
      where: {
        id: { in: [...new Set([...mcpServers.values()].flat().flatMap((link) => link.mcpServer.agentId ?? []))] },
      },
      select: CALLEE_COLUMNS,
    }),
  );
  return agents.map((agent) => ({
    ...agent,
    integrations: integrations.get(agent.id) ?? [],
    mcpServers: mcpServers.get(agent.id) ?? [],
    guardrails: guardrails.get(agent.id) ?? [],
    defaultGuardrails: (defaultGuardrails.get(agent.workspaceId) ?? []).map((link) => link.guardrail),
    sso: agent.ssoId ? (ssos.get(agent.ssoId) ?? null) : null,
    observability: agent.observabilityId ? (observabilities.get(agent.observabilityId) ?? null) : null,
    engineConfig: configs.get(agent.id) ?? null,
    // The agents its MCP servers of transport "agent" call, in the order of those servers.
    callees: (mcpServers.get(agent.id) ?? []).flatMap((link) => callees.get(link.mcpServer.agentId ?? '') ?? []),
    workspaceBudget: workspaces.get(agent.workspaceId)?.budget ?? null,
  }));
}
