// The chain of agent-to-agent calls a new call would extend, read from the runs themselves: each called
// run records the agent and run that called it (agent_runs.caller_agent_id, caller_run_id, written by the
// callee's engine from its verified token). Read from the database rather than from a token the caller
// passes on, so a run that calls long after it was called, or on another replica, still has its chain.
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';

export const MAX_AGENT_CALL_DEPTH_DEFAULT = 3;

type ChainRow = { agent_id: string; status: string };

/** The calling run and the runs that called it, nearest first; at most `limit` of them. */
async function readRunChain(db: Db, agentId: string, runId: string, limit: number): Promise<ChainRow[]> {
  return db.$queryRaw<ChainRow[]>`
    WITH RECURSIVE chain AS (
      SELECT agent_id, id, status, caller_agent_id, caller_run_id, 1 AS depth
      FROM agent_runs WHERE agent_id = ${agentId}::uuid AND id = ${runId}
      UNION ALL
      SELECT run.agent_id, run.id, run.status, run.caller_agent_id, run.caller_run_id, chain.depth + 1
      FROM chain JOIN agent_runs run ON run.agent_id = chain.caller_agent_id AND run.id = chain.caller_run_id
      WHERE chain.depth < ${limit})
    SELECT agent_id::text AS agent_id, status::text AS status FROM chain ORDER BY depth`;
}

const arrow = (ids: string[]) => ids.join(' → ');

/**
 * The agents from the origin of the calls to the caller, once the call from `callerRunId` to
 * `calleeId` is known to be allowed: the run is running, the callee is not in the chain, and the chain
 * is not already `maxDepth` calls long.
 */
export async function checkAgentCallChain(
  db: Db,
  call: { callerId: string; callerRunId: string; calleeId: string; maxDepth: number },
): Promise<string[]> {
  // One more than a chain may hold, so that a chain too long is seen as such.
  const rows = await readRunChain(db, call.callerId, call.callerRunId, call.maxDepth + 1);
  if (rows[0]?.status !== 'running') {
    throw new AppError('validation_failed', 'The calling run is not running.', {
      errors: [{ path: 'caller_run_id', message: 'No running run of the calling agent has this id' }],
    });
  }
  const chain = rows.map((row) => row.agent_id).reverse();
  if (chain.includes(call.calleeId)) {
    throw new AppError(
      'conflict',
      `Refused: calling agent ${call.calleeId} again would make a cycle (${arrow([...chain, call.calleeId])}).`,
      { type: 'agent-call-cycle' },
    );
  }
  if (chain.length > call.maxDepth) {
    throw new AppError(
      'conflict',
      `Refused: agent calls may nest at most ${call.maxDepth} deep (MAX_AGENT_CALL_DEPTH), and this one would be deeper (${arrow([...chain, call.calleeId])}).`,
      { type: 'agent-call-depth' },
    );
  }
  return chain;
}
