// When a schedule fires, by croner (maintained, no dependencies, time zones through the runtime's Intl
// database). DST follows croner's fixed-time rule "no-wildcard", close to Vixie cron: a pattern whose
// minute and hour hold no wildcard or step (`30 2 * * *`, `0 9,17 * * *`) names wall-clock times; one
// that falls in a spring-forward gap fires once at the first valid instant after the gap (02:30 fires
// at 03:00), and one repeated at fall-back fires once, at its first occurrence. Any other pattern
// (`*/15 * * * *`, `0 * * * *`) is an interval: it skips the times a gap removes and fires at both
// occurrences of a repeated time, as elapsed time does.
import { AppError } from '@agentplane/server-kit';
import { Cron } from 'croner';

export type CronSchedule = { cron: string; timezone: string };

/**
 * Ticks older than this when the scheduler first sees them were missed (no scheduler ran then), and
 * the schedule's catch-up policy decides; younger ones are merely late and fire. Twice the longest
 * SCHEDULER_POLL_MS, so that a tick is never called missed for waiting one poll.
 */
export const LATE_TICK_GRACE_MS = 60_000;

function cronOf({ cron, timezone }: CronSchedule): Cron {
  return new Cron(cron, { timezone, paused: true, mode: '5-part', fixedTimeRule: 'no-wildcard' });
}

/** Refuses (422, naming `cron`) a pattern croner cannot read or that never fires. */
export function checkCronSchedule(schedule: CronSchedule): void {
  let next: Date | null;
  try {
    next = cronOf(schedule).nextRun();
  } catch (error) {
    throw new AppError('validation_failed', 'The cron expression is not valid.', {
      errors: [{ path: 'cron', message: (error as Error).message }],
    });
  }
  if (next === null) {
    throw new AppError('validation_failed', 'The cron expression never fires.', {
      errors: [{ path: 'cron', message: 'Names no date that comes (such as 30 February)' }],
    });
  }
}

/** The first `count` ticks strictly after `after`. */
export function nextTicks(schedule: CronSchedule, after: Date, count: number): Date[] {
  return cronOf(schedule).nextRuns(count, after);
}

/** The first tick strictly after `after`, or null for a pattern that never fires again. */
export function nextTick(schedule: CronSchedule, after: Date): Date | null {
  return cronOf(schedule).nextRun(after);
}

export type TickPlan = {
  /** The tick to queue a run for, if any. */
  fire: Date | undefined;
  /** The newest missed tick, when ticks were missed and catch-up `skip` fires none of them. */
  missed: Date | undefined;
  /** The schedule's next_fire_at after this: the first tick after `now`. */
  next: Date | null;
};

/**
 * What a scheduler that finds `due` (≤ now) due does: fire it when it is merely late; when ticks were
 * missed, fire the newest of them once (`once`) or none (`skip`). Either way the schedule resumes at
 * the first tick after `now`, so a downtime turns into one run at most.
 */
export function planTick(schedule: CronSchedule & { catchUp: 'skip' | 'once' }, due: Date, now: Date): TickPlan {
  const cron = cronOf(schedule);
  const next = cron.nextRun(now);
  const newest = cron.previousRuns(1, new Date(now.getTime() + 1))[0] ?? due;
  const latest = newest.getTime() > due.getTime() ? newest : due;
  const missed = latest.getTime() !== due.getTime() || now.getTime() - due.getTime() > LATE_TICK_GRACE_MS;
  if (!missed) return { fire: due, missed: undefined, next };
  return schedule.catchUp === 'once'
    ? { fire: latest, missed: undefined, next }
    : { fire: undefined, missed: latest, next };
}
