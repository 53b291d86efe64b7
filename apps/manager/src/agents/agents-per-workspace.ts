// The operator's cap on agents per workspace (MAX_AGENTS_PER_WORKSPACE): each agent is a published
// config, an engine role and what its engine stores, so a sign-up must not make them without bound.
// Prisma cannot lock a row, so this is SQL.
import type { Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';

export const MAX_AGENTS_PER_WORKSPACE_DEFAULT = 1000;

/**
 * Refuses (409) a new agent in a workspace that has `max` already. The workspace's row lock makes two
 * creates at the cap count one after the other: the second waits for the first's commit, then counts
 * its agent. FOR NO KEY UPDATE leaves other writes' foreign-key checks on the workspace (FOR KEY
 * SHARE) alone, and engine roles hold no privilege on workspaces, so they cannot take it.
 */
export async function refuseAgentPastCap(tx: Tx, workspaceId: string, max: number): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId}::uuid FOR NO KEY UPDATE`;
  const count = await tx.agent.count({ where: { workspaceId } });
  if (count < max) return;
  throw new AppError(
    'conflict',
    `This workspace has ${count} agents, the most the operator allows (MAX_AGENTS_PER_WORKSPACE=${max}); delete one first.`,
    { type: 'agents-per-workspace' },
  );
}
