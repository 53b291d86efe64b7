// Cancelling a tool call from its `notifications/cancelled`. The endpoint is stateless (a server and
// transport per HTTP request, mcp-routes.ts), so that notification arrives on another request, maybe
// at another replica, than the call it cancels. The call's run id carries a tag of its JSON-RPC request
// id, so the notification finds the run through agent_runs: the caller's newest MCP run still going
// whose id starts with that tag. Two clients of one subject with a call of the same request id in
// flight at once are told apart by nothing else; the newer one is cancelled.
import { createHash, randomUUID } from 'node:crypto';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { requestCancel } from '../runs/run-control-records.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import type { Queryable } from '../threads/thread-store.js';

const tagOf = (requestId: RequestId) =>
  `mcp-${createHash('sha256').update(JSON.stringify(requestId)).digest('hex').slice(0, 16)}-`;

/** A new run id for the tool call of this JSON-RPC request id. */
export const mcpCallRunId = (requestId: RequestId): string => `${tagOf(requestId)}${randomUUID()}`;

const FIND_CALL = `
  SELECT id FROM agent_runs
  WHERE agent_id = $1 AND source = 'mcp' AND status IN ('pending', 'running')
    AND issuer IS NOT DISTINCT FROM $2 AND subject IS NOT DISTINCT FROM $3 AND left(id, $4) = $5
  ORDER BY created_at DESC
  LIMIT 1`;

/** Cancels the caller's run of the tool call `requestId`, if one is still going. */
export async function cancelMcpCall(
  db: Queryable,
  agentId: string,
  caller: ThreadCaller | undefined,
  requestId: RequestId,
): Promise<void> {
  const tag = tagOf(requestId);
  const { rows } = await db.query<{ id: string }>(FIND_CALL, [
    agentId,
    caller?.issuer ?? null,
    caller?.subject ?? null,
    tag.length,
    tag,
  ]);
  const run = rows[0];
  if (run !== undefined) await requestCancel(db, agentId, run.id);
}
