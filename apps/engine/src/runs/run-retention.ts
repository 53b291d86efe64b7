// Deletes this agent's finished runs, with their events (a trigger on agent_runs), once they finished longer
// ago than the retention period; the engine prunes its own runs as it prunes its WhatsApp queue
// (whatsapp/inbound-retention.ts says why). Running and pending runs are never touched.
import type { Logger } from '@agentplane/server-kit';
import { deleteInBatches, type Pruner, startPruner } from '../retention/prune-in-batches.js';
import type { Queryable } from '../threads/thread-store.js';

/** Runs per DELETE: each takes its events along, so batches are smaller than the queue's. */
export const RUN_PRUNE_BATCH_SIZE = 500;
export const RUN_PRUNE_MAX_BATCHES = 50;
const RUN_PRUNE_INTERVAL_MS = 60 * 60 * 1000;

// SKIP LOCKED and MATERIALIZED as in inbound-retention.ts.
const PRUNE = `
  WITH doomed AS MATERIALIZED (
    SELECT agent_id, id FROM agent_runs
    WHERE agent_id = $1 AND status NOT IN ('pending', 'running')
      AND finished_at < now() - $2::float8 * interval '1 millisecond'
    LIMIT $3
    FOR UPDATE SKIP LOCKED)
  DELETE FROM agent_runs r USING doomed WHERE r.agent_id = doomed.agent_id AND r.id = doomed.id`;

export function pruneFinishedRuns(
  db: Queryable,
  agentId: string,
  {
    retentionMs,
    batchSize = RUN_PRUNE_BATCH_SIZE,
    maxBatches = RUN_PRUNE_MAX_BATCHES,
  }: {
    retentionMs: number;
    batchSize?: number;
    maxBatches?: number;
  },
): Promise<{ deleted: number; batches: number }> {
  return deleteInBatches(db, PRUNE, [agentId, retentionMs], { batchSize, maxBatches });
}

/** Prunes at start, then every hour, until stopped. */
export function startRunPruner(options: {
  db: Queryable;
  agentId: string;
  retentionMs: number;
  logger: Logger;
}): Pruner {
  return startPruner({
    prune: () => pruneFinishedRuns(options.db, options.agentId, { retentionMs: options.retentionMs }),
    what: 'finished runs',
    component: 'run-retention',
    intervalMs: RUN_PRUNE_INTERVAL_MS,
    logger: options.logger,
  });
}
