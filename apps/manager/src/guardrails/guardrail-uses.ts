// What keeps a guardrail from being deleted besides the agents that name it.
import type { Db, Tx } from '@agentplane/db';
import type { ResourceUse } from '../resources/resource-kinds.js';

export async function guardrailUsesByWorkspace(db: Db | Tx, id: string): Promise<ResourceUse[]> {
  const defaults = await db.workspaceGuardrail.count({ where: { guardrailId: id } });
  if (defaults === 0) return [];
  return [
    {
      what: "is one of the workspace's default guardrails, which all its agents apply",
      undo: "remove it from the workspace's default_guardrail_ids",
    },
  ];
}
