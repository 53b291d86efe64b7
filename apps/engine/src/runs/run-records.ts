// A run's row in agent_runs (database mode): created `running` under this replica's lease, finished
// once its events are stored, and read back for its caller only. Every change that a follower of the
// run must see is announced on the agent's run channel (run-notifications.ts).
import { CHANNEL_RUN_SOURCES, type RUN_SOURCES, type TGuardrailActionRecord } from '@agentplane/contracts';
import type { DatabaseError } from 'pg';
import { notifyOnRunChannel } from '../listen/agent-channels.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import type { Queryable } from '../threads/thread-store.js';
import { QUEUE_NEWS_SQL, RUN_NEWS_SQL } from './run-notifications.js';

export type RunSource = (typeof RUN_SOURCES)[number];
export type ChannelRunSource = (typeof CHANNEL_RUN_SOURCES)[number];
/** `input_required`: the run ended with an AG-UI interrupt outcome (a tool call awaiting approval); a new run resumes it. */
export type FinalStatus = 'succeeded' | 'failed' | 'cancelled' | 'interrupted' | 'input_required';
/** How a requested cancel ends a run: cancelled, interrupted (messages kept) or rolled back (discarded). */
export type CancelMode = 'cancel' | 'interrupt' | 'rollback';
/** Why this replica stopped a run: a cancel asked for, or its own graceful shutdown. */
export type StopReason = CancelMode | 'shutdown';
export type RunStatus = 'pending' | 'running' | FinalStatus;

export type NewRun = {
  agentId: string;
  runId: string;
  threadId: string;
  threadKey: string;
  caller: ThreadCaller | undefined;
  source: RunSource;
  /** The engine_configs version of the snapshot that runs it: the agent version it ran with. */
  configVersion: number;
  /** The replica running it and how long its lease holds before it counts as lost (run-leases.ts). */
  owner: string;
  leaseMs: number;
};

export type RunRecord = {
  id: string;
  thread_id: string;
  status: RunStatus;
  source: RunSource;
  error: string | null;
  usage: unknown;
  last_seq: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  caller_agent_id: string | null;
  caller_run_id: string | null;
};

/** Why a run could not start: its id is taken, or its thread already has a running run. */
export type RunConflict = 'run_id_taken' | 'run_in_progress';

const INSERT = `
  INSERT INTO agent_runs
    (agent_id, id, thread_id, thread_key, issuer, subject, source, caller_agent_id, caller_run_id, status, owner,
     lease_expires_at, started_at, agent_version)
  VALUES ($1, $2, $3, $4, $5, $6, $7::"RunSource", $8::uuid, $9, 'running', $10,
          now() + $11::float8 * interval '1 millisecond', now(), $12)`;

// A messaging channel's queue gives a thread's messages to one worker at a time, so a run still
// marked running on that thread belongs to a worker that lost its claim: it is lost, not concurrent.
const SUPERSEDE = `
  WITH lost AS (
    UPDATE agent_runs SET status = 'failed', error = 'engine lost', finished_at = now(), lease_expires_at = NULL
    WHERE agent_id = $1 AND thread_key = $2 AND status = 'running'
    RETURNING id)
  SELECT ${notifyOnRunChannel(RUN_NEWS_SQL('id'))} FROM lost`;

/** The first nine columns of a new run's row, in the order both inserts (here, run-control-records.ts) name them. */
export function runIdentity(run: Omit<NewRun, 'owner' | 'leaseMs' | 'configVersion'>): (string | null)[] {
  return [
    run.agentId,
    run.runId,
    run.threadId,
    run.threadKey,
    run.caller?.issuer ?? null,
    run.caller?.subject ?? null,
    run.source,
    run.caller?.callingRun?.agentId ?? null,
    run.caller?.callingRun?.runId ?? null,
  ];
}

/** Creates the run's row as running; a conflict is returned, other failures thrown. */
export async function createRun(
  db: Queryable,
  run: NewRun,
  { supersede = false }: { supersede?: boolean } = {},
): Promise<RunConflict | undefined> {
  if (supersede) await db.query(SUPERSEDE, [run.agentId, run.threadKey]);
  try {
    await db.query(INSERT, [...runIdentity(run), run.owner, run.leaseMs, run.configVersion]);
    return undefined;
  } catch (error) {
    const { code, constraint } = error as DatabaseError;
    if (code !== '23505') throw error;
    return constraint === 'agent_runs_one_running_per_thread' ? 'run_in_progress' : 'run_id_taken';
  }
}

// Only while this replica still holds it: a run the sweep already declared lost stays failed, and its
// log keeps ending with the sweep's RUN_ERROR. The run's last events go in the same statement: one
// round trip and one new version of the row for the end, not two. The agent's queues hear of the end
// only when a run of the thread waits behind this one: one pending when this statement began, or one
// whose enqueue marked this row (`queue_waiters`, under the row's lock: an enqueue racing this UPDATE
// either marks the row first, or finds it ended and its own news comes after this commit).
const FINISH = {
  name: 'finish-run',
  text: `
  WITH finished AS (
    UPDATE agent_runs
    SET status = $4::"RunStatus", error = $5, usage = $6::jsonb, finished_at = now(), lease_expires_at = NULL,
      last_seq = GREATEST(last_seq, $7), guardrail_actions = COALESCE($10::jsonb, guardrail_actions), error_code = $11
    WHERE agent_id = $1 AND id = $2 AND owner = $3 AND status = 'running'
    RETURNING id, thread_key, queue_waiters),
  appended AS (
    INSERT INTO run_events (agent_id, run_id, seq, data)
    SELECT $1, finished.id, t.seq, t.data FROM finished, unnest($8::int[], $9::text[]) AS t(seq, data))
  SELECT ${notifyOnRunChannel(RUN_NEWS_SQL('id'))},
    CASE WHEN queue_waiters OR EXISTS (
      SELECT 1 FROM agent_runs p WHERE p.agent_id = $1 AND p.thread_key = finished.thread_key AND p.status = 'pending')
    THEN ${notifyOnRunChannel(QUEUE_NEWS_SQL)} END
  FROM finished`,
};

/** The longest error kept on a run: a summary, not a dump. */
const MAX_ERROR_LENGTH = 500;
/** An AG-UI error code is a short constant; a custom agent's longer one is cut. */
const MAX_ERROR_CODE_LENGTH = 100;

/** Marks the run final with its outcome, storing `lastEvents` (those not stored yet, in order) with it. */
export async function finishRun(
  db: Queryable,
  run: Pick<NewRun, 'agentId' | 'runId' | 'owner'>,
  outcome: {
    status: FinalStatus;
    error?: string;
    errorCode?: string;
    usage?: unknown;
    guardrailActions?: TGuardrailActionRecord[];
  },
  lastEvents: { seq: number; data: string }[] = [],
): Promise<void> {
  await db.query({
    ...FINISH,
    values: [
      run.agentId,
      run.runId,
      run.owner,
      outcome.status,
      outcome.error?.slice(0, MAX_ERROR_LENGTH) ?? null,
      outcome.usage === undefined ? null : JSON.stringify(outcome.usage),
      lastEvents.at(-1)?.seq ?? 0,
      lastEvents.map((event) => event.seq),
      lastEvents.map((event) => event.data),
      // Most runs fire no rule: the column keeps its default rather than a copy of it.
      outcome.guardrailActions === undefined || outcome.guardrailActions.length === 0
        ? null
        : JSON.stringify(outcome.guardrailActions),
      outcome.errorCode?.slice(0, MAX_ERROR_CODE_LENGTH) ?? null,
    ],
  });
}

// A caller sees its own runs: same issuer and subject, or, with auth off, the runs made without a token.
// Messaging channels' runs have no token either, and are not a client's to read.
/** A RunRecord's columns, for every query that reads runs back. */
export const RUN_RECORD_COLUMNS =
  'id, thread_id, status, source, error, usage, last_seq, created_at, started_at, finished_at, caller_agent_id, caller_run_id';
/** The runs of the caller named by $2 (issuer) and $3 (subject): a client's own runs, never a channel's. */
export const CALLERS_RUNS = `agent_id = $1 AND issuer IS NOT DISTINCT FROM $2 AND subject IS NOT DISTINCT FROM $3
    AND source NOT IN (${CHANNEL_RUN_SOURCES.map((source) => `'${source}'`).join(', ')})`;
// One run's read also brings the guardrail rules that fired in it; lists leave them out.
const FIND = `SELECT ${RUN_RECORD_COLUMNS}, guardrail_actions FROM agent_runs WHERE ${CALLERS_RUNS} AND id = $4`;

/** A run read on its own: its record and the guardrail rules that fired in it. */
export type FoundRun = RunRecord & { guardrail_actions: TGuardrailActionRecord[] };

export async function findRun(
  db: Queryable,
  agentId: string,
  runId: string,
  caller: ThreadCaller | undefined,
): Promise<FoundRun | undefined> {
  const { rows } = await db.query<FoundRun>(FIND, [agentId, caller?.issuer ?? null, caller?.subject ?? null, runId]);
  return rows[0];
}

export const isFinal = (status: RunStatus): status is FinalStatus => status !== 'pending' && status !== 'running';
