// How many runs may wait `pending` at once: per thread (`enqueue` lines them up) and per caller (the
// token's issuer and subject; all callers of an engine without auth count as one), so no token holder
// can grow the queue, and the inputs stored with it, without bound. Checked inside the enqueue's
// transaction (run-control-records.ts), under locks that make the count and the insert one step.
import { AppError } from '@agentplane/server-kit';
import type { ThreadCaller } from '../threads/thread-scope.js';
import type { Queryable } from '../threads/thread-store.js';
import { takeRunQueueLock } from './run-queue-locks.js';

export type PendingRunCaps = { perThread: number; perSubject: number };

export const PENDING_RUNS_PER_THREAD_DEFAULT = 10;
export const PENDING_RUNS_PER_SUBJECT_DEFAULT = 100;
/** A waiting run starts when a run ends, which takes seconds: a client asked to wait tries again after this. */
export const PENDING_RETRY_AFTER_SECONDS = 5;

export type QueueFull = 'thread_queue_full' | 'subject_queue_full';

// Expressions of agent_runs_pending_subject_idx; the thread's count uses the thread's index.
const COUNT = `
  SELECT
    (SELECT count(*) FROM agent_runs WHERE agent_id = $1 AND thread_key = $2 AND status = 'pending')::int AS thread,
    (SELECT count(*) FROM agent_runs
     WHERE agent_id = $1 AND status = 'pending' AND coalesce(issuer, '') = $3 AND coalesce(subject, '') = $4)::int
      AS subject`;

/**
 * Says which cap a new pending run would pass, if any. Call it inside the enqueue's transaction,
 * after the thread's lock and before the insert.
 */
export async function findFullQueue(
  db: Queryable,
  run: { agentId: string; threadKey: string; caller: ThreadCaller | undefined },
  caps: PendingRunCaps,
): Promise<QueueFull | undefined> {
  const issuer = run.caller?.issuer ?? '';
  const subject = run.caller?.subject ?? '';
  // Two enqueues on one thread are already serialised by the thread's lock; two of one caller on
  // different threads are not, so they take the caller's lock too: the second counts the first's run
  // once the first commits. Every enqueue takes one thread lock, then one caller lock, always in that
  // order (the locks' scopes are apart even when their keys share a slot), so they cannot deadlock.
  await takeRunQueueLock(db, run.agentId, 'caller', JSON.stringify([issuer, subject]));
  const { rows } = await db.query<{ thread: number; subject: number }>(COUNT, [
    run.agentId,
    run.threadKey,
    issuer,
    subject,
  ]);
  const counts = rows[0] ?? { thread: 0, subject: 0 };
  if (counts.thread >= caps.perThread) return 'thread_queue_full';
  if (counts.subject >= caps.perSubject) return 'subject_queue_full';
  return undefined;
}

/** The 429 of a full queue, naming the cap and its setting. */
export function refuseFullQueue(full: QueueFull, caps: PendingRunCaps): never {
  const detail =
    full === 'thread_queue_full'
      ? `This thread already has ${caps.perThread} runs waiting (ENGINE_PENDING_RUNS_PER_THREAD); try again once one has started.`
      : `You already have ${caps.perSubject} runs waiting (ENGINE_PENDING_RUNS_PER_SUBJECT); try again once one has started.`;
  throw new AppError('too_many_requests', detail, {
    type: full === 'thread_queue_full' ? 'pending-runs-per-thread' : 'pending-runs-per-subject',
    headers: { 'Retry-After': String(PENDING_RETRY_AFTER_SECONDS) },
  });
}
