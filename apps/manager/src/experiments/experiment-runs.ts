// An experiment's agent runs, in SQL for the row locks, the conflict-tolerant inserts and the NOTIFYs.
// Each (item, version, repeat) has one run of a deterministic id, so queueing it again after any restart
// inserts nothing (ON CONFLICT DO NOTHING): that, and the result row's state, is the exactly-once. The
// runs are ordinary pending background runs pinned to their version: any replica of the agent's engine
// claims them, woken by the 'queue' news on the agent's run channel (agent-runs/queue-background-runs.ts).
import type { TDatasetMessage } from '@agentplane/contracts';
import type { Db, Tx } from '@agentplane/db';
import { queueBackgroundRuns } from '../agent-runs/queue-background-runs.js';

/** The subject experiment runs carry: not a user, so no end user's token ever lists their threads. */
export function experimentSubject(experimentId: string): string {
  return `experiment:${experimentId}`;
}

export function experimentRunId(key: { experimentId: string; itemId: string; version: number; repeat: number }) {
  return `experiment:${key.experimentId}:${key.itemId}:${key.version}:${key.repeat}`;
}

// As the engine ends a waiting run it cancels (run-control-records.ts CANCEL_PENDING): its RUN_ERROR as
// its only event, in the exact payload an engine's stream sends.
const CANCELLED_EVENT = JSON.stringify({ type: 'RUN_ERROR', message: 'The run was cancelled.', code: 'cancelled' });

/**
 * Cancels the experiment's runs, as the engine's cancel does: waiting ones end `cancelled` here (the
 * queue moves on), running ones get cancel_requested_at and the 'cancel:<run>' news their replica
 * listens for; the results not yet queued end `cancelled`. The caller holds the experiment's row lock.
 */
export async function cancelExperimentRuns(tx: Tx, options: { experimentId: string; agentId: string }): Promise<void> {
  const { experimentId, agentId } = options;
  await tx.$executeRaw`
    WITH runs AS (
      SELECT run_id FROM experiment_results
      WHERE experiment_id = ${experimentId}::uuid AND state = 'queued'),
    cancelled AS (
      UPDATE agent_runs
      SET status = 'cancelled', error = 'cancelled', cancel_requested_at = now(), cancel_mode = 'cancel',
          input = NULL, finished_at = now(), last_seq = last_seq + 1
      WHERE agent_id = ${agentId}::uuid AND id IN (SELECT run_id FROM runs) AND status = 'pending'
      RETURNING agent_id, id, last_seq),
    ended AS (
      INSERT INTO run_events (agent_id, run_id, seq, data)
      SELECT agent_id, id, last_seq, ${CANCELLED_EVENT} FROM cancelled)
    SELECT pg_notify(c.run_channel, 'run:' || cancelled.id)
    FROM cancelled, engine_channels c WHERE c.agent_id = ${agentId}::uuid`;
  await tx.$executeRaw`
    WITH asked AS (
      UPDATE agent_runs SET cancel_requested_at = now(), cancel_mode = 'cancel'
      WHERE agent_id = ${agentId}::uuid AND status = 'running' AND cancel_requested_at IS NULL
        AND id IN (SELECT run_id FROM experiment_results
                   WHERE experiment_id = ${experimentId}::uuid AND state = 'queued')
      RETURNING id)
    SELECT pg_notify(c.run_channel, 'cancel:' || asked.id)
    FROM asked, engine_channels c WHERE c.agent_id = ${agentId}::uuid`;
  await tx.$executeRaw`
    SELECT pg_notify(run_channel, 'queue') FROM engine_channels WHERE agent_id = ${agentId}::uuid`;
  await tx.$executeRaw`
    UPDATE experiment_results SET state = 'cancelled', updated_at = now()
    WHERE experiment_id = ${experimentId}::uuid AND state = 'pending'`;
}

type PendingResult = { item_id: string; agent_version: bigint; repeat: number; input: TDatasetMessage[] };

export type QueueOptions = {
  experimentId: string;
  agentId: string;
  datasetId: string;
  datasetVersion: number;
  concurrency: number;
  /** The manager's token issuer: the runs carry it, as scheduled runs do. */
  issuer: string;
};

/**
 * Queues the next pending results, in the dataset's order, so that at most `concurrency` are in flight;
 * returns how many it queued. The caller holds the experiment's row lock and has seen it running.
 */
export async function queuePendingRuns(tx: Tx, options: QueueOptions): Promise<number> {
  const { experimentId, agentId } = options;
  const [inFlight] = await tx.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM experiment_results
    WHERE experiment_id = ${experimentId}::uuid AND state = 'queued'`;
  const slots = options.concurrency - (inFlight?.count ?? 0);
  if (slots <= 0) return 0;
  const pending = await tx.$queryRaw<PendingResult[]>`
    SELECT r.item_id, r.agent_version, r.repeat, i.input
    FROM experiment_results r
    JOIN dataset_items i ON i.dataset_id = ${options.datasetId}::uuid AND i.item_id = r.item_id
      AND i.valid_from <= ${options.datasetVersion}
      AND (i.valid_to IS NULL OR i.valid_to > ${options.datasetVersion})
    WHERE r.experiment_id = ${experimentId}::uuid AND r.state = 'pending'
    ORDER BY r.position, r.agent_version, r.repeat
    LIMIT ${slots}`;
  if (pending.length === 0) return 0;
  const runs = pending.map((result) => ({
    result,
    runId: experimentRunId({
      experimentId,
      itemId: result.item_id,
      version: Number(result.agent_version),
      repeat: result.repeat,
    }),
  }));
  await queueBackgroundRuns(tx, {
    agentId,
    owner: { issuer: options.issuer, subject: experimentSubject(experimentId) },
    source: 'experiment',
    runs: runs.map(({ result, runId }) => ({
      runId,
      // A fresh thread per run.
      threadId: runId,
      messages: result.input,
      pinnedVersion: result.agent_version,
    })),
  });
  await tx.$executeRaw`
    UPDATE experiment_results r
    SET state = 'queued', run_id = t.run_id, queued_at = now(), updated_at = now()
    FROM unnest(${runs.map((run) => run.result.item_id)}::uuid[], ${runs.map((run) => run.result.agent_version)}::bigint[],
                ${runs.map((run) => run.result.repeat)}::int[], ${runs.map((run) => run.runId)}::text[])
      AS t(item_id, agent_version, repeat, run_id)
    WHERE r.experiment_id = ${experimentId}::uuid AND r.item_id = t.item_id
      AND r.agent_version = t.agent_version AND r.repeat = t.repeat AND r.state = 'pending'`;
  return runs.length;
}

/** A queued result whose run has ended (or whose run row is gone), with what the run recorded. */
export type EndedRun = {
  item_id: string;
  agent_version: bigint;
  repeat: number;
  run_id: string;
  /** null: no such run any more. */
  status: string | null;
  error: string | null;
  error_code: string | null;
  usage: unknown;
  started_at: Date | null;
  finished_at: Date | null;
  input: TDatasetMessage[] | null;
  expected: unknown;
};

const ENDED_STATUSES = ['succeeded', 'failed', 'cancelled', 'interrupted', 'input_required'];

/** Up to `limit` queued results whose runs ended, with their item's input and expectation. */
export async function readEndedRuns(
  db: Db,
  options: { experimentId: string; agentId: string; datasetId: string | null; datasetVersion: number; limit: number },
): Promise<EndedRun[]> {
  return db.$queryRaw<EndedRun[]>`
    SELECT r.item_id, r.agent_version, r.repeat, r.run_id, a.status::text AS status, a.error, a.error_code,
           a.usage, a.started_at, a.finished_at, i.input, i.expected
    FROM experiment_results r
    LEFT JOIN agent_runs a ON a.agent_id = ${options.agentId}::uuid AND a.id = r.run_id
    LEFT JOIN dataset_items i ON i.dataset_id = ${options.datasetId}::uuid AND i.item_id = r.item_id
      AND i.valid_from <= ${options.datasetVersion}
      AND (i.valid_to IS NULL OR i.valid_to > ${options.datasetVersion})
    WHERE r.experiment_id = ${options.experimentId}::uuid AND r.state = 'queued'
      AND (a.id IS NULL OR a.status::text = ANY(${ENDED_STATUSES}))
    ORDER BY r.position, r.agent_version, r.repeat
    LIMIT ${options.limit}`;
}

/** The run's AG-UI events, each the data payload its stream sent, in order. */
export async function readRunEvents(db: Db, agentId: string, runId: string): Promise<string[]> {
  const rows = await db.runEvent.findMany({
    where: { agentId, runId },
    orderBy: { seq: 'asc' },
    select: { data: true },
  });
  return rows.map((row) => row.data);
}
