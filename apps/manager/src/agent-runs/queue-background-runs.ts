// Background runs the manager queues for an agent's engines (a schedule's tick, an experiment's items):
// `pending` agent_runs rows with an AG-UI RunAgentInput, as a client's POST /agent/runs would queue
// them, and the 'queue' news on the agent's run channel that wakes its engines (their
// run-notifications.ts; they poll too). Ids are the callers' own and deterministic, so queueing a run
// again after any restart inserts nothing (ON CONFLICT DO NOTHING). In the caller's transaction: the
// news is delivered at its commit, and not at all on rollback.
import { aguiThreadKey } from '@agentplane/contracts';
import type { Tx } from '@agentplane/db';

/** A message of the run's input, as AG-UI has it; one without an id gets `<runId>:<index>`. */
export type QueuedMessage = { id?: string; role: string; [field: string]: unknown };

export type QueuedRun = {
  runId: string;
  threadId: string;
  messages: QueuedMessage[];
  /** The agent version it must run with (experiments); the served one otherwise. */
  pinnedVersion?: bigint;
};

export async function queueBackgroundRuns(
  tx: Tx,
  queue: {
    agentId: string;
    /** Who the runs go out as: the manager's token issuer and the subject their threads belong to. */
    owner: { issuer: string; subject: string };
    source: 'schedule' | 'experiment';
    runs: QueuedRun[];
  },
): Promise<void> {
  const { agentId, owner, runs } = queue;
  if (runs.length === 0) return;
  const column = <T>(pick: (run: QueuedRun) => T) => runs.map(pick);
  await tx.$executeRaw`
    INSERT INTO agent_runs
      (agent_id, id, thread_id, thread_key, issuer, subject, source, status, input, pinned_version)
    SELECT ${agentId}::uuid, id, thread_id, thread_key, ${owner.issuer}, ${owner.subject},
           ${queue.source}::"RunSource", 'pending', input, version
    FROM unnest(${column((run) => run.runId)}::text[], ${column((run) => run.threadId)}::text[],
                ${column((run) => aguiThreadKey(agentId, owner, run.threadId))}::text[],
                ${column((run) => JSON.stringify(runAgentInput(run)))}::jsonb[],
                ${column((run) => (run.pinnedVersion === undefined ? null : String(run.pinnedVersion)))}::bigint[])
      AS t(id, thread_id, thread_key, input, version)
    ON CONFLICT DO NOTHING`;
  await tx.$executeRaw`SELECT pg_notify(run_channel, 'queue') FROM engine_channels WHERE agent_id = ${agentId}::uuid`;
}

/** An AG-UI RunAgentInput, as a client's POST /agent/runs body would be. */
function runAgentInput(run: QueuedRun) {
  return {
    threadId: run.threadId,
    runId: run.runId,
    state: {},
    messages: run.messages.map((message, index) => ({ ...message, id: message.id ?? `${run.runId}:${index}` })),
    tools: [],
    context: [],
    forwardedProps: {},
  };
}
