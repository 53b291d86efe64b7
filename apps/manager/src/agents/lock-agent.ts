// Serialises the writes to one agent. A full replacement deletes the agent's links and inserts the new
// ones; two replacements that interleave would both insert the same link (agent_integrations_pkey).
// Prisma cannot lock a row, so this is SQL. FOR NO KEY UPDATE is the lock the agent's own UPDATE takes,
// taken first: unlike FOR UPDATE it still lets the links' foreign-key checks (FOR KEY SHARE) through.
import type { Tx } from '@agentplane/db';

export type LockedAgent = {
  framework: string;
  config: unknown;
  deploymentMode: string;
  deploymentPool: string | null;
};

/**
 * Locks the agent until the transaction ends and reads its stored config (secrets sealed), so that a
 * masked secret the write keeps is the one it replaces, and its placement, so that a move starts from
 * where it is (a delete, which takes the row's lock too, waits or is waited for); undefined when no such
 * agent is in the workspace.
 */
export async function lockAgent(tx: Tx, workspaceId: string, id: string): Promise<LockedAgent | undefined> {
  const [row] = await tx.$queryRaw<LockedAgent[]>`
    SELECT framework::text AS framework, config, deployment_mode AS "deploymentMode",
           deployment_pool AS "deploymentPool"
    FROM agents
    WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid FOR NO KEY UPDATE`;
  return row;
}
