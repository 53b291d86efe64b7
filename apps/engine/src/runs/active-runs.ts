// The runs this replica executes, each with the AbortController that stops it. A cancel is asked for
// on the run's row (run-control-records.ts) by whichever replica took the request; this replica learns
// of it from a `cancel:` notification, or, should that be missed, from its next lease renewal
// (run-leases.ts), reads how the run is to end, and aborts it. On a graceful shutdown the replica lets
// its runs finish for a while, then stops the rest itself, so their clients get RUN_ERROR at once
// instead of waiting for the lease to run out.
import type { Logger } from '@agentplane/server-kit';
import type { Queryable } from '../threads/thread-store.js';
import type { CancelMode, StopReason } from './run-records.js';

export type ActiveRun = {
  /** How a requested cancel, or this replica's shutdown, stopped the run; undefined while none did. */
  cancelled: () => StopReason | undefined;
  release: () => void;
};

export type ActiveRuns = {
  /** How many runs this replica executes now. */
  size: () => number;
  add: (runId: string, controller: AbortController) => ActiveRun;
  /** Aborts the runs given (all of this replica's when undefined) whose cancel was asked for. */
  checkCancels: (runIds?: string[]) => Promise<void>;
  /** Waits up to `graceMs` for the runs to end, then stops the rest (`engine stopped`) and waits for them. */
  drain: (graceMs: number) => Promise<void>;
};

// How long stopped runs get to write their RUN_ERROR and final status.
const STOPPED_RUNS_WAIT_MS = 5000;

type Entry = { controller: AbortController; mode?: StopReason };

const REQUESTED = `
  SELECT id, cancel_mode FROM agent_runs
  WHERE agent_id = $1 AND owner = $2 AND id = ANY($3::text[]) AND status = 'running' AND cancel_requested_at IS NOT NULL`;

export function createActiveRuns(options: {
  db: Queryable;
  agentId: string;
  owner: string;
  logger: Logger;
}): ActiveRuns {
  const { db, agentId, owner } = options;
  const runs = new Map<string, Entry>();
  const whenEmpty = new Set<() => void>();
  const untilEmpty = (ms: number) =>
    new Promise<void>((resolve) => {
      if (runs.size === 0) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        whenEmpty.delete(done);
        resolve();
      }
      whenEmpty.add(done);
    });
  return {
    size: () => runs.size,
    add: (runId, controller) => {
      const entry: Entry = { controller };
      runs.set(runId, entry);
      return {
        cancelled: () => entry.mode,
        release: () => {
          if (runs.get(runId) === entry) runs.delete(runId);
          if (runs.size === 0) for (const done of [...whenEmpty]) done();
        },
      };
    },
    drain: async (graceMs) => {
      await untilEmpty(graceMs);
      if (runs.size === 0) return;
      options.logger.warn({ runs: runs.size }, 'runs still going at shutdown: stopping them');
      for (const entry of runs.values()) {
        if (entry.controller.signal.aborted) continue;
        entry.mode = 'shutdown';
        entry.controller.abort();
      }
      await untilEmpty(STOPPED_RUNS_WAIT_MS);
    },
    checkCancels: async (runIds) => {
      const local = (runIds ?? [...runs.keys()]).filter((id) => runs.has(id));
      if (local.length === 0) return;
      try {
        const { rows } = await db.query<{ id: string; cancel_mode: CancelMode | null }>(REQUESTED, [
          agentId,
          owner,
          local,
        ]);
        for (const row of rows) {
          const entry = runs.get(row.id);
          if (entry === undefined || entry.controller.signal.aborted) continue;
          entry.mode = row.cancel_mode ?? 'cancel';
          entry.controller.abort();
        }
      } catch (error) {
        // The lease renewal asks again within a third of the lease.
        options.logger.warn({ err: error }, 'could not read the cancels asked for');
      }
    },
  };
}
