// The SQL of a thread's queue and of cancels (database mode), in pg rather than Prisma for the row
// locks, SKIP LOCKED and NOTIFY. A thread's runs wait `pending`, in queued_at order; any replica with a
// free slot claims the oldest one whose thread has no running run. The partial unique index "one
// running run per thread" is what keeps two replicas from running two of a thread's runs at once: a
// claim that collides with it fails and is tried again later.
import type { RunAgentInput } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import type { TMultitaskStrategy } from '@agentplane/contracts';
import type { DatabaseError } from 'pg';
import type { AgentDb } from '../database/agent-db.js';
import { notifyOnRunChannel } from '../listen/agent-channels.js';
import type { Queryable } from '../threads/thread-store.js';
import { sseData } from './event-stream.js';
import { findFullQueue, type PendingRunCaps, type QueueFull } from './pending-run-caps.js';
import { CANCEL_NEWS_SQL, QUEUE_NEWS_SQL, RUN_NEWS_SQL } from './run-notifications.js';
import { takeRunQueueLock } from './run-queue-locks.js';
import { type NewRun, type RunConflict, type RunSource, runIdentity, type StopReason } from './run-records.js';

/** A run to queue: a new run's row without an owner yet, and the input it starts with. */
export type QueuedRun = Omit<NewRun, 'owner' | 'leaseMs' | 'configVersion'> & { input: RunAgentInput };

const ACTIVE = `SELECT 1 FROM agent_runs WHERE agent_id = $1 AND thread_key = $2 AND status IN ('pending', 'running') LIMIT 1`;
// A newer run supersedes the thread's waiting runs, which never started (each gets its RUN_ERROR as its
// only event), and asks its running one to stop.
const SUPERSEDE_PENDING = `
  WITH superseded AS (
    UPDATE agent_runs
    SET status = 'cancelled', error = 'superseded by a newer run', input = NULL, finished_at = now(),
        last_seq = last_seq + 1
    WHERE agent_id = $1 AND thread_key = $2 AND status = 'pending'
    RETURNING agent_id, id, last_seq),
  ended AS (
    INSERT INTO run_events (agent_id, run_id, seq, data) SELECT agent_id, id, last_seq, $3 FROM superseded)
  SELECT ${notifyOnRunChannel(RUN_NEWS_SQL('id'))} FROM superseded`;
const STOP_RUNNING = `
  WITH asked AS (
    UPDATE agent_runs SET cancel_requested_at = now(), cancel_mode = $3
    WHERE agent_id = $1 AND thread_key = $2 AND status = 'running'
    RETURNING id)
  SELECT ${notifyOnRunChannel(CANCEL_NEWS_SQL('id'))} FROM asked`;
// The runs ahead of the new one in its thread's line: the end of each must wake the queues (run-records.ts
// FINISH). An UPDATE, not a read: it waits for a FINISH holding the row, then finds the run ended.
const MARK_WAITED_ON = `
  UPDATE agent_runs SET queue_waiters = true
  WHERE agent_id = $1 AND thread_key = $2 AND status IN ('pending', 'running') AND NOT queue_waiters`;
// No row when the id is taken; the queues hear of the run in the same round trip.
const INSERT_PENDING = `
  WITH queued AS (
    INSERT INTO agent_runs
      (agent_id, id, thread_id, thread_key, issuer, subject, source, caller_agent_id, caller_run_id, status, input)
    VALUES ($1, $2, $3, $4, $5, $6, $7::"RunSource", $8::uuid, $9, 'pending', $10::jsonb)
    ON CONFLICT DO NOTHING
    RETURNING id)
  SELECT ${notifyOnRunChannel(QUEUE_NEWS_SQL)} FROM queued`;

/**
 * Queues the run on its thread under `strategy`: `reject` refuses it while the thread has a run going
 * or waiting, `enqueue` puts it last, `interrupt` and `rollback` supersede what is waiting and stop
 * what is running (interrupted, or rolled back). Returns the conflict, or the cap a new waiting run
 * would pass (`caps`), when it is not queued.
 */
export async function enqueueRun(
  pool: AgentDb,
  run: QueuedRun,
  strategy: TMultitaskStrategy,
  caps: PendingRunCaps,
): Promise<RunConflict | QueueFull | undefined> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Serialises the queue operations of one thread: two racing requests see each other's runs.
    await takeRunQueueLock(client, run.agentId, 'thread', run.threadKey);
    const thread = [run.agentId, run.threadKey];
    if (strategy === 'reject' && (await client.query(ACTIVE, thread)).rowCount !== 0) {
      await client.query('ROLLBACK');
      return 'run_in_progress';
    }
    if (strategy === 'interrupt' || strategy === 'rollback') {
      await client.query(SUPERSEDE_PENDING, [...thread, sseData(cancellationEvent(strategy))]);
      await client.query(STOP_RUNNING, [...thread, strategy]);
    }
    // Under the thread's lock only: the caller's lock, which every enqueue of the caller waits for, is
    // held for as few statements as can be.
    await client.query(MARK_WAITED_ON, thread);
    // After the superseded runs are gone, which no longer wait; a refusal rolls their cancel back.
    const full = await findFullQueue(client, run, caps);
    if (full !== undefined) {
      await client.query('ROLLBACK');
      return full;
    }
    const inserted = await client.query(INSERT_PENDING, [...runIdentity(run), JSON.stringify(run.input)]);
    if (inserted.rowCount === 0) {
      await client.query('ROLLBACK');
      return 'run_id_taken';
    }
    await client.query('COMMIT');
    return undefined;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export type ClaimedRun = {
  id: string;
  thread_key: string;
  issuer: string | null;
  subject: string | null;
  input: RunAgentInput;
  source: RunSource;
  /** The agent version the run must run with (an experiment's), or null: the claiming replica's. */
  pinned_version: number | null;
};

// The oldest waiting run whose thread is free and which is first in its thread's line. SKIP LOCKED lets
// two replicas claim different runs at once; a run of the same thread behind a locked one is not first
// in line, so it is not taken either. The run is stamped with the version it runs with: the one it is
// pinned to (an experiment's, run-queue.ts runs it with that version's config or fails it), else the
// config version of the replica that claims it, whatever version was current when it was queued.
const CLAIM = `
  WITH next AS (
    SELECT p.agent_id, p.id, p.input FROM agent_runs p
    WHERE p.agent_id = $1 AND p.status = 'pending'
      AND NOT EXISTS (
        SELECT 1 FROM agent_runs q
        WHERE q.agent_id = p.agent_id AND q.thread_key = p.thread_key
          AND (q.status = 'running' OR (q.status = 'pending' AND q.queued_at < p.queued_at)))
    ORDER BY p.queued_at
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
  UPDATE agent_runs r
  SET status = 'running', owner = $2, lease_expires_at = now() + $3::float8 * interval '1 millisecond',
      started_at = now(), input = NULL, agent_version = COALESCE(r.pinned_version, $4)
  FROM next WHERE r.agent_id = next.agent_id AND r.id = next.id
  RETURNING r.id, r.thread_key, r.issuer, r.subject, r.source, next.input, r.pinned_version::float8 AS pinned_version`;

/** Claims the next run to start for this replica; undefined when none is ready (or a race lost it). */
export async function claimNextRun(
  db: Queryable,
  agentId: string,
  owner: string,
  leaseMs: number,
  configVersion: number,
): Promise<ClaimedRun | undefined> {
  try {
    const { rows } = await db.query<ClaimedRun>(CLAIM, [agentId, owner, leaseMs, configVersion]);
    return rows[0];
  } catch (error) {
    // Another replica started a run of that thread in between: the index refused the second one.
    if ((error as DatabaseError).constraint === 'agent_runs_one_running_per_thread') return undefined;
    throw error;
  }
}

const ANY_PENDING = `SELECT EXISTS (SELECT 1 FROM agent_runs WHERE agent_id = $1 AND status = 'pending') AS pending`;

/** Whether the agent has runs waiting (claimable or behind a running run of their thread). */
export async function hasPendingRuns(db: Queryable, agentId: string): Promise<boolean> {
  const { rows } = await db.query<{ pending: boolean }>(ANY_PENDING, [agentId]);
  return rows[0]?.pending === true;
}

/** The RUN_ERROR a cancelled run ends with, live and in its log. */
export function cancellationEvent(mode: StopReason): { type: EventType.RUN_ERROR; message: string; code: string } {
  const events = {
    shutdown: { message: 'The engine stopped before the run finished.', code: 'engine_stopped' },
    cancel: { message: 'The run was cancelled.', code: 'cancelled' },
    interrupt: { message: 'A newer run on this thread interrupted this one.', code: 'interrupted' },
    rollback: { message: 'A newer run on this thread rolled this one back.', code: 'rolled_back' },
  } as const;
  return { type: EventType.RUN_ERROR, ...events[mode] };
}

// A waiting run has no replica to stop it: it is cancelled here and now, with its RUN_ERROR as its only
// event, and its thread's queue moves on.
const CANCEL_PENDING = `
  WITH cancelled AS (
    UPDATE agent_runs
    SET status = 'cancelled', error = 'cancelled', cancel_requested_at = now(), cancel_mode = 'cancel',
        input = NULL, finished_at = now(), last_seq = last_seq + 1
    WHERE agent_id = $1 AND id = $2 AND status = 'pending'
    RETURNING agent_id, id, last_seq),
  ended AS (
    INSERT INTO run_events (agent_id, run_id, seq, data) SELECT agent_id, id, last_seq, $3 FROM cancelled)
  SELECT ${notifyOnRunChannel(RUN_NEWS_SQL('id'))}, ${notifyOnRunChannel(QUEUE_NEWS_SQL)} FROM cancelled`;
const CANCEL_RUNNING = `
  WITH asked AS (
    UPDATE agent_runs SET cancel_requested_at = now(), cancel_mode = 'cancel'
    WHERE agent_id = $1 AND id = $2 AND status = 'running' AND cancel_requested_at IS NULL
    RETURNING id)
  SELECT ${notifyOnRunChannel(CANCEL_NEWS_SQL('id'))} FROM asked`;

/**
 * Cancels a waiting run at once (`cancelled`), or asks the replica running it to stop it (`requested`,
 * also when asked before); `over` when the run ended first.
 */
export async function requestCancel(
  db: Queryable,
  agentId: string,
  runId: string,
): Promise<'cancelled' | 'requested' | 'over'> {
  const pending = await db.query(CANCEL_PENDING, [agentId, runId, sseData(cancellationEvent('cancel'))]);
  if (pending.rowCount !== 0) return 'cancelled';
  // Told by the UPDATE itself: the replica may stop the run, and record it cancelled, before a read after it.
  const asked = await db.query(CANCEL_RUNNING, [agentId, runId]);
  if (asked.rowCount !== 0) return 'requested';
  const { rows } = await db.query<{ running: boolean }>(
    `SELECT status = 'running' AS running FROM agent_runs WHERE agent_id = $1 AND id = $2`,
    [agentId, runId],
  );
  return rows[0]?.running === true ? 'requested' : 'over';
}
