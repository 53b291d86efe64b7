// Deletes this agent's conversation threads (AG-UI and messaging alike; their messages go with them)
// that saw no activity for the retention period: nothing appended since (updated_at) and no run
// waiting or running on them. The engine prunes its own threads as it prunes its runs and its
// WhatsApp queue (whatsapp/inbound-retention.ts says why).
import type { Logger } from '@agentplane/server-kit';
import { deleteInBatches, type Pruner, startPruner } from '../retention/prune-in-batches.js';
import type { Queryable } from './thread-store.js';

/** Threads per DELETE: each takes its messages along. */
export const THREAD_PRUNE_BATCH_SIZE = 200;
export const THREAD_PRUNE_MAX_BATCHES = 50;
export const THREAD_RETENTION_DAYS_DEFAULT = 90;
const THREAD_PRUNE_INTERVAL_MS = 60 * 60 * 1000;

// SKIP LOCKED and MATERIALIZED as in inbound-retention.ts. A thread being appended to holds its row's
// lock, so it is skipped, and a run that starts on it after the delete stores its messages in a new
// thread of the same key.
const PRUNE = `
  WITH doomed AS MATERIALIZED (
    SELECT t.id FROM conversation_threads t
    WHERE t.agent_id = $1 AND t.updated_at < now() - $2::float8 * interval '1 millisecond'
      AND NOT EXISTS (
        SELECT 1 FROM agent_runs r
        WHERE r.agent_id = t.agent_id AND r.thread_key = t.external_key AND r.status IN ('pending', 'running'))
    LIMIT $3
    FOR UPDATE SKIP LOCKED)
  DELETE FROM conversation_threads t USING doomed WHERE t.id = doomed.id`;

export function pruneIdleThreads(
  db: Queryable,
  agentId: string,
  {
    retentionMs,
    batchSize = THREAD_PRUNE_BATCH_SIZE,
    maxBatches = THREAD_PRUNE_MAX_BATCHES,
  }: { retentionMs: number; batchSize?: number; maxBatches?: number },
): Promise<{ deleted: number; batches: number }> {
  return deleteInBatches(db, PRUNE, [agentId, retentionMs], { batchSize, maxBatches });
}

/** Prunes at start, then every hour, until stopped. */
export function startThreadPruner(options: {
  db: Queryable;
  agentId: string;
  retentionMs: number;
  logger: Logger;
}): Pruner {
  return startPruner({
    prune: () => pruneIdleThreads(options.db, options.agentId, { retentionMs: options.retentionMs }),
    what: 'idle threads',
    component: 'thread-retention',
    intervalMs: THREAD_PRUNE_INTERVAL_MS,
    logger: options.logger,
  });
}
