// One due schedule's tick, in one transaction. SQL rather than Prisma for the row lock (FOR UPDATE SKIP
// LOCKED: replicas take different schedules, never one twice), the conflict-tolerant inserts and the
// NOTIFY. Exactly once per tick holds even without the lock: schedule_fires' primary key (schedule,
// tick) admits one row per tick and the run's id is derived from the tick, so a second attempt inserts
// nothing; next_fire_at moves past the tick in the same transaction, so no replica finds it due again.
// The run is an ordinary pending background run: any replica of the agent's engine claims it, woken by
// the 'queue' news on the agent's run channel (the engine's run-notifications.ts) or its own poll.
import { hasRoleAtLeast, type TRole, type TRunStatus } from '@agentplane/contracts';
import type { Db, Tx } from '@agentplane/db';
import { queueBackgroundRuns } from '../agent-runs/queue-background-runs.js';
import { planTick } from './schedule-times.js';

export type FireSettings = {
  /** The manager's token issuer: scheduled runs carry it and the owner's id, as the owner's own tokens do. */
  issuer: string;
  /** After this many runs in a row failed, the schedule disables itself. */
  maxConsecutiveFailures: number;
  /** Fire records kept per schedule, newest first. */
  firesKept: number;
};

/** What a scheduler did with one due schedule. */
export type FireOutcome =
  | { kind: 'queued'; scheduleId: string; tick: Date; runId: string }
  | { kind: 'skipped'; scheduleId: string; tick: Date; reason: string }
  | { kind: 'disabled'; scheduleId: string; reason: string };

type DueSchedule = {
  id: string;
  agent_id: string;
  owner_id: string;
  cron: string;
  timezone: string;
  message: string;
  thread: 'new' | 'fixed';
  catch_up: 'skip' | 'once';
  next_fire_at: Date;
  last_run_id: string | null;
  consecutive_failures: number;
  owner_role: TRole | null;
};

// The owner must still be a member who may write to the workspace: runs go out as them.
const OWNER_MIN_ROLE: TRole = 'member';
const REASON_MAX_LENGTH = 500;

/** The run a tick queues: its id, and its thread (one per tick, or the schedule's own). */
export function scheduledRunIds(scheduleId: string, thread: 'new' | 'fixed', tick: Date) {
  const runId = `schedule:${scheduleId}:${tick.toISOString()}`;
  return { runId, threadId: thread === 'fixed' ? `schedule:${scheduleId}` : runId };
}

async function claimDueSchedule(tx: Tx, now: Date): Promise<DueSchedule | undefined> {
  const [row] = await tx.$queryRaw<DueSchedule[]>`
    SELECT s.id, s.agent_id, s.owner_id, s.cron, s.timezone, s.message, s.thread, s.catch_up, s.next_fire_at,
           s.last_run_id, s.consecutive_failures, m.role::text AS owner_role
    FROM agent_schedules s
    LEFT JOIN memberships m ON m.workspace_id = s.workspace_id AND m.user_id = s.owner_id
    WHERE s.enabled AND s.next_fire_at <= ${now}
    ORDER BY s.next_fire_at
    LIMIT 1
    FOR UPDATE OF s SKIP LOCKED`;
  return row;
}

async function disable(tx: Tx, schedule: DueSchedule, reason: string, failures: number): Promise<FireOutcome> {
  await tx.$executeRaw`
    UPDATE agent_schedules
    SET enabled = false, next_fire_at = NULL, disabled_reason = ${reason.slice(0, REASON_MAX_LENGTH)},
        consecutive_failures = ${failures}, updated_at = now()
    WHERE id = ${schedule.id}::uuid`;
  return { kind: 'disabled', scheduleId: schedule.id, reason };
}

/** Records the tick; false when it was recorded before (the tick is not handled twice). */
async function recordFire(
  tx: Tx,
  schedule: DueSchedule,
  tick: Date,
  fire: { runId: string | null; reason: string | null },
): Promise<boolean> {
  const inserted = await tx.$executeRaw`
    INSERT INTO schedule_fires (schedule_id, tick, run_id, outcome, reason)
    VALUES (${schedule.id}::uuid, ${tick}, ${fire.runId}, ${fire.runId === null ? 'skipped' : 'queued'}, ${fire.reason})
    ON CONFLICT DO NOTHING`;
  return inserted === 1;
}

async function readRunStatus(tx: Tx, agentId: string, runId: string | null): Promise<TRunStatus | undefined> {
  if (runId === null) return undefined;
  const [row] = await tx.$queryRaw<{ status: TRunStatus }[]>`
    SELECT status::text AS status FROM agent_runs WHERE agent_id = ${agentId}::uuid AND id = ${runId}`;
  return row?.status;
}

/** The previous run's end, counted once: a tick that finds it still going queues nothing, so the next one reads it again. */
function failuresAfter(previous: TRunStatus | undefined, failures: number): number {
  if (previous === 'failed') return failures + 1;
  if (previous === 'succeeded') return 0;
  // Cancelled, interrupted, waiting for input, or gone: no verdict on the schedule.
  return failures;
}

async function queueRun(tx: Tx, schedule: DueSchedule, tick: Date, settings: FireSettings): Promise<void> {
  const { runId, threadId } = scheduledRunIds(schedule.id, schedule.thread, tick);
  await queueBackgroundRuns(tx, {
    agentId: schedule.agent_id,
    owner: { issuer: settings.issuer, subject: schedule.owner_id },
    source: 'schedule',
    runs: [{ runId, threadId, messages: [{ id: `${runId}:message`, role: 'user', content: schedule.message }] }],
  });
}

async function pruneFires(tx: Tx, scheduleId: string, kept: number): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM schedule_fires WHERE schedule_id = ${scheduleId}::uuid AND tick < (
      SELECT tick FROM schedule_fires WHERE schedule_id = ${scheduleId}::uuid
      ORDER BY tick DESC OFFSET ${kept - 1} LIMIT 1)`;
}

async function fireClaimed(tx: Tx, schedule: DueSchedule, now: Date, settings: FireSettings): Promise<FireOutcome> {
  if (schedule.owner_role === null || !hasRoleAtLeast(schedule.owner_role, OWNER_MIN_ROLE)) {
    return disable(
      tx,
      schedule,
      'Its owner is no longer a member who may write to the workspace; enabling it again makes you its owner.',
      schedule.consecutive_failures,
    );
  }
  const plan = planTick({ ...schedule, catchUp: schedule.catch_up }, schedule.next_fire_at, now);
  const advance = (fields: { lastRunId: string | null; failures: number }) => tx.$executeRaw`
    UPDATE agent_schedules
    SET next_fire_at = ${plan.next}, last_run_id = ${fields.lastRunId}, consecutive_failures = ${fields.failures},
        updated_at = now()
    WHERE id = ${schedule.id}::uuid`;
  const finish = async (outcome: FireOutcome) => {
    await pruneFires(tx, schedule.id, settings.firesKept);
    return outcome;
  };
  // A tick that queues nothing: recorded with why, and the schedule moves on to its next one.
  const skip = async (tick: Date, reason: string) => {
    await recordFire(tx, schedule, tick, { runId: null, reason });
    await advance({ lastRunId: schedule.last_run_id, failures: schedule.consecutive_failures });
    return finish({ kind: 'skipped', scheduleId: schedule.id, tick, reason });
  };

  if (plan.fire === undefined) {
    return skip(plan.missed ?? schedule.next_fire_at, 'Missed while no scheduler ran (catch_up "skip")');
  }
  const tick = plan.fire;
  const previous = await readRunStatus(tx, schedule.agent_id, schedule.last_run_id);
  if (previous === 'pending' || previous === 'running') {
    return skip(tick, `The previous run (${schedule.last_run_id}) was still ${previous}`);
  }
  const failures = failuresAfter(previous, schedule.consecutive_failures);
  if (failures >= settings.maxConsecutiveFailures) {
    const reason = `Disabled after ${failures} runs in a row failed (the last: ${schedule.last_run_id}).`;
    await recordFire(tx, schedule, tick, { runId: null, reason });
    return finish(await disable(tx, schedule, reason, failures));
  }
  const { runId } = scheduledRunIds(schedule.id, schedule.thread, tick);
  if (await recordFire(tx, schedule, tick, { runId, reason: null })) await queueRun(tx, schedule, tick, settings);
  await advance({ lastRunId: runId, failures });
  return finish({ kind: 'queued', scheduleId: schedule.id, tick, runId });
}

/** Handles the most overdue schedule no other replica holds; undefined when none is due. */
export async function fireNextDueSchedule(db: Db, now: Date, settings: FireSettings): Promise<FireOutcome | undefined> {
  return db.$transaction(async (tx) => {
    const schedule = await claimDueSchedule(tx, now);
    return schedule === undefined ? undefined : fireClaimed(tx, schedule, now, settings);
  });
}
