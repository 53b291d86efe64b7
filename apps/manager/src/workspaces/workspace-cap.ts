// The operator's caps on what one workspace holds (agents, webhook endpoints, datasets…), counted under
// the workspace's row lock. Prisma cannot lock a row, so the lock is SQL.
import type { Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';

export type WorkspaceCap = {
  max: number;
  /** Counts what the cap bounds, inside the transaction that holds the lock. */
  count: (tx: Tx) => Promise<number>;
  /** What is counted, plural: "agents", "webhook endpoints". */
  noun: string;
  /** The env variable that sets `max`, named in the refusal. */
  setting: string;
  /** The problem type's last segment, e.g. `agents-per-workspace`. */
  type: string;
};

/**
 * Refuses (409) one more of what `cap` counts in a workspace that holds `cap.max` already. The workspace's
 * row lock makes two creates at the cap count one after the other: the second waits for the first's
 * commit, then counts its row. FOR NO KEY UPDATE leaves other writes' foreign-key checks on the workspace
 * (FOR KEY SHARE) alone, and engine roles hold no privilege on workspaces, so they cannot take it.
 */
export async function refusePastWorkspaceCap(tx: Tx, workspaceId: string, cap: WorkspaceCap): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM workspaces WHERE id = ${workspaceId}::uuid FOR NO KEY UPDATE`;
  const count = await cap.count(tx);
  if (count < cap.max) return;
  throw new AppError(
    'conflict',
    `This workspace has ${count} ${cap.noun}, the most the operator allows (${cap.setting}=${cap.max}); delete one first.`,
    { type: cap.type },
  );
}
