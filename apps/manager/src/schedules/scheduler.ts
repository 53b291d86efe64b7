// Every manager replica runs one scheduler. A pass fires the due schedules one transaction each
// (fire-schedule.ts), so replicas share the work and none fires a tick another already did. The clock
// is injected: tests move it across DST transitions and downtimes without waiting.
import type { Db } from '@agentplane/db';
import type { Logger } from '@agentplane/server-kit';
import { type FireOutcome, type FireSettings, fireNextDueSchedule } from './fire-schedule.js';

export const SCHEDULER_POLL_MS_DEFAULT = 5000;
export const SCHEDULE_MAX_CONSECUTIVE_FAILURES_DEFAULT = 5;
/** Fire records kept per schedule: the newest are what the API and console show. */
export const SCHEDULE_FIRES_KEPT = 50;
// A pass stops after this many, so that a backlog does not hold one replica's loop: the next pass
// (here or on another replica) goes on with it.
const FIRES_PER_PASS = 500;

export type SchedulerDependencies = FireSettings & { db: Db; now: () => Date; logger: Logger };

/** Fires what is due at `now()`; returns what it did, oldest tick first. */
export async function runSchedulerPass(deps: SchedulerDependencies): Promise<FireOutcome[]> {
  const outcomes: FireOutcome[] = [];
  while (outcomes.length < FIRES_PER_PASS) {
    const outcome = await fireNextDueSchedule(deps.db, deps.now(), deps);
    if (outcome === undefined) break;
    if (outcome.kind === 'disabled') {
      deps.logger.warn({ schedule_id: outcome.scheduleId, reason: outcome.reason }, 'disabled a schedule');
    }
    outcomes.push(outcome);
  }
  return outcomes;
}

export type Scheduler = {
  /** Runs a pass every `pollMs`, with runs issued as `issuer`, until stopped. */
  start: (issuer: string) => void;
  /** Stops the passes and waits for the one going on. */
  stop: () => Promise<void>;
};

/**
 * A scheduler to start once the manager listens (the default issuer names its port). A pass that fails
 * is logged and the next one tries again.
 */
export function createScheduler(deps: Omit<SchedulerDependencies, 'issuer'> & { pollMs: number }): Scheduler {
  let timer: NodeJS.Timeout | undefined;
  // One pass at a time: a tick that comes while one runs is left to the next.
  let running: Promise<void> | undefined;
  return {
    start: (issuer) => {
      timer ??= setInterval(() => {
        running ??= runSchedulerPass({ ...deps, issuer })
          .then(
            () => undefined,
            (error: unknown) => deps.logger.warn({ err: error }, 'a scheduler pass failed; the next one tries again'),
          )
          .finally(() => {
            running = undefined;
          });
      }, deps.pollMs);
    },
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
