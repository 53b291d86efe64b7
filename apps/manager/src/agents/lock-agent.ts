// Serialises the writes to one agent. A full replacement deletes the agent's links and inserts the new
// ones; two replacements that interleave would both insert the same link (agent_integrations_pkey).
// Prisma cannot lock a row, so this is SQL. FOR NO KEY UPDATE is the lock the agent's own UPDATE takes,
// taken first: unlike FOR UPDATE it still lets the links' foreign-key checks (FOR KEY SHARE) through.
import type { Tx } from '@agentplane/db';

/**
 * Locks the agent until the transaction ends and reads its stored config (secrets sealed), so that a
 * masked secret the write keeps is the one it replaces; undefined when no such agent is in the workspace.
 */
export async function lockAgent(
  tx: Tx,
  workspaceId: string,
  id: string,
): Promise<{ framework: string; config: unknown } | undefined> {
  const [row] = await tx.$queryRaw<{ framework: string; config: unknown }[]>`
    SELECT framework::text AS framework, config FROM agents
    WHERE id = ${id}::uuid AND workspace_id = ${workspaceId}::uuid FOR NO KEY UPDATE`;
  return row;
}
