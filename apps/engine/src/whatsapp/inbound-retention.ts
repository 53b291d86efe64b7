// Deletes this agent's finished inbound messages (done, failed, skipped) once they are older than the
// retention period. The engine prunes its own queue rather than the manager pruning everyone's: the
// engine owns the queue (it is the only writer of these rows, and with no engine running no rows are
// added), its database role may delete exactly its agent's rows under the queue's row-level security
// policy (granted in migration 20261123010000), and the manager needs no scheduler that reaches into
// every tenant's rows. A row's `updated_at` is when it was finished, since nothing writes it after.
// Plain SQL: Prisma cannot say DELETE … LIMIT.
import type { Logger } from '@agentplane/server-kit';
import { deleteInBatches, type Pruner, startPruner } from '../retention/prune-in-batches.js';
import type { Queryable } from '../threads/thread-store.js';

/** Rows per DELETE: each statement holds few locks and writes little WAL at once. */
export const PRUNE_BATCH_SIZE = 1000;
/** Batches per pass: a backlog is worked off over several passes, none of which runs for long. */
export const PRUNE_MAX_BATCHES = 50;
const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

// SKIP LOCKED: replicas pruning at the same moment take different rows instead of waiting on each other.
// MATERIALIZED: as `id IN (SELECT … LIMIT n)` the planner may run the subquery more than once, and
// delete more than n rows; the CTE is run once.
const PRUNE = `
  WITH doomed AS MATERIALIZED (
    SELECT id FROM inbound_messages
    WHERE agent_id = $1 AND status IN ('done', 'failed', 'skipped')
      AND updated_at < now() - $2::float8 * interval '1 millisecond'
    LIMIT $3
    FOR UPDATE SKIP LOCKED)
  DELETE FROM inbound_messages m USING doomed WHERE m.id = doomed.id`;

export type PruneOptions = { retentionMs: number; batchSize?: number; maxBatches?: number };

/** Deletes batch after batch while a full batch was deleted, at most `maxBatches` of them. */
export function pruneFinishedMessages(
  db: Queryable,
  agentId: string,
  { retentionMs, batchSize = PRUNE_BATCH_SIZE, maxBatches = PRUNE_MAX_BATCHES }: PruneOptions,
): Promise<{ deleted: number; batches: number }> {
  return deleteInBatches(db, PRUNE, [agentId, retentionMs], { batchSize, maxBatches });
}

export type InboundPruner = Pruner;

/** Prunes at start, then every hour, until stopped. */
export function startInboundPruner(options: {
  db: Queryable;
  agentId: string;
  retentionMs: number;
  logger: Logger;
}): InboundPruner {
  return startPruner({
    prune: () => pruneFinishedMessages(options.db, options.agentId, { retentionMs: options.retentionMs }),
    what: 'finished inbound messages',
    component: 'inbound-retention',
    intervalMs: PRUNE_INTERVAL_MS,
    logger: options.logger,
  });
}
