// An MCP server of transport "agent" references an agent of its own workspace. Checking it with FOR KEY
// SHARE also holds the agent until the write commits: a concurrent delete of that agent then meets the
// RESTRICT foreign key (mcp_servers.agent_id) and answers 409, never leaving a server pointing at nothing.
import type { TMcpServerConfig } from '@agentplane/contracts';
import type { Db, Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';

function noSuchAgent(agentId: string): AppError {
  return new AppError('validation_failed', 'The MCP server calls an agent that does not exist in this workspace.', {
    errors: [{ path: 'mcp_server.agent_id', message: `No agent with id ${agentId} in this workspace` }],
  });
}

/** The agent a server calls, or null for every other transport. */
export function calleeOf(server: TMcpServerConfig): string | null {
  return server.transport === 'agent' ? (server.agent_id ?? null) : null;
}

export async function lockCallee(tx: Tx, workspaceId: string, server: TMcpServerConfig): Promise<void> {
  const agentId = calleeOf(server);
  if (agentId === null) return;
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM agents WHERE id = ${agentId}::uuid AND workspace_id = ${workspaceId}::uuid FOR KEY SHARE`;
  if (rows.length === 0) throw noSuchAgent(agentId);
}

// Enough for a person to find the servers; the rest are counted.
const SERVERS_NAMED_MAX = 5;

/**
 * A 409 while MCP servers of transport "agent" call the agent, naming them; undefined when none does.
 * Servers are of the agent's own workspace, so naming them leaks nothing.
 */
export async function describeCallersOf(tx: Db | Tx, agentId: string): Promise<AppError | undefined> {
  const where = { agentId };
  const [count, servers] = await Promise.all([
    tx.mcpServer.count({ where }),
    tx.mcpServer.findMany({
      where,
      select: { name: true },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: SERVERS_NAMED_MAX,
    }),
  ]);
  if (count === 0) return undefined;
  const more = count > servers.length ? ` and ${count - servers.length} more` : '';
  const named = servers.map((server) => JSON.stringify(server.name)).join(', ');
  return new AppError(
    'conflict',
    `This agent is called as a tool through ${count} MCP server${count === 1 ? '' : 's'} (${named}${more}); delete ${count === 1 ? 'that server' : 'them'} first.`,
  );
}
