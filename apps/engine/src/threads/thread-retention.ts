// Deletes this agent's conversation threads (AG-UI and messaging alike; their messages go with them)
// that saw no activity for the retention period: nothing appended since (updated_at) and no run
// waiting or running on them. The engine prunes its own threads as it prunes its runs and its
// WhatsApp queue (whatsapp/inbound-retention.ts says why).
import { defineRetention } from '../retention/prune-in-batches.js';

export const THREAD_RETENTION_DAYS_DEFAULT = 90;

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

const threadRetention = defineRetention({
  statement: PRUNE,
  // Threads per DELETE: each takes its messages along.
  batchSize: 200,
  maxBatches: 50,
  what: 'idle threads',
  component: 'thread-retention',
  intervalMs: 60 * 60 * 1000,
});

export const pruneIdleThreads = threadRetention.prune;
/** Prunes at start, then every hour, until stopped. */
export const startThreadPruner = threadRetention.start;
