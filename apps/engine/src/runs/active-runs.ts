// The runs this replica executes, each with the AbortController that stops it. A cancel is asked for
// on the run's row (run-control-records.ts) by whichever replica took the request; this replica learns
// of it from a `cancel:` notification, or, should that be missed, from its next lease renewal
// (run-leases.ts), reads how the run is to end, and aborts it.
import type { Logger } from '@agentplane/server-kit';
import type { Queryable } from '../threads/thread-store.js';
import type { CancelMode } from './run-records.js';

export type ActiveRun = {
  /** How a requested cancel stopped the run; undefined while none did. */
  cancelled: () => CancelMode | undefined;
  release: () => void;
};

export type ActiveRuns = {
  add: (runId: string, controller: AbortController) => ActiveRun;
  /** Aborts the runs given (all of this replica's when undefined) whose cancel was asked for. */
  checkCancels: (runIds?: string[]) => Promise<void>;
};

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
  const runs = new Map<string, { controller: AbortController; mode?: CancelMode }>();
  return {
    add: (runId, controller) => {
      const entry: { controller: AbortController; mode?: CancelMode } = { controller };
      runs.set(runId, entry);
      return {
        cancelled: () => entry.mode,
        release: () => {
          if (runs.get(runId) === entry) runs.delete(runId);
        },
      };
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
