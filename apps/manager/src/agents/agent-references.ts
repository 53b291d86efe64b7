// An agent may only reference resources of its own workspace. Checking them with FOR SHARE also locks
// them until the agent write commits: a concurrent DELETE then sees the new link and answers 409, and a
// concurrent PATCH of the resource is ordered before or after us, never half-seen.
import type { TAgentResources } from '@agentplane/contracts';
import type { Tx } from '@agentplane/db';
import { AppError, type FieldError } from '@agentplane/server-kit';

type Table = 'integrations' | 'mcp_servers' | 'sso_configs' | 'observability_configs' | 'guardrails';

/** Locks FOR SHARE the rows of `ids` that `table` holds in the workspace, and says which those are. */
export async function lockExisting(tx: Tx, table: Table, workspaceId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  // The table name comes from the fixed union above, never from input.
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id::text AS id FROM ${table} WHERE workspace_id = $1::uuid AND id = ANY($2::uuid[]) ORDER BY id FOR SHARE`,
    workspaceId,
    ids,
  );
  return new Set(rows.map((row) => row.id));
}

export async function lockReferencedResources(tx: Tx, workspaceId: string, resources: TAgentResources): Promise<void> {
  const errors: FieldError[] = [];
  const check = async (table: Table, ids: string[], path: (index: number) => string, label: string) => {
    const found = await lockExisting(tx, table, workspaceId, ids);
    ids.forEach((id, index) => {
      if (!found.has(id)) errors.push({ path: path(index), message: `No ${label} with id ${id} in this workspace` });
    });
  };
  await check('integrations', resources.integration_ids, (i) => `resources.integration_ids[${i}]`, 'integration');
  await check('mcp_servers', resources.mcp_server_ids, (i) => `resources.mcp_server_ids[${i}]`, 'MCP server');
  await check('guardrails', resources.guardrail_ids, (i) => `resources.guardrail_ids[${i}]`, 'guardrail');
  if (resources.sso_id) await check('sso_configs', [resources.sso_id], () => 'resources.sso_id', 'SSO config');
  if (resources.observability_id) {
    await check(
      'observability_configs',
      [resources.observability_id],
      () => 'resources.observability_id',
      'observability config',
    );
  }
  if (errors.length > 0) {
    throw new AppError('validation_failed', 'The agent references resources that do not exist in this workspace.', {
      errors,
    });
  }
}
