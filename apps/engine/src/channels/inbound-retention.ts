// Deletes this agent's finished inbound channel messages (done, failed, skipped) once they are older
// than the retention period. The engine prunes its own queue rather than the manager pruning everyone's: the
// engine owns the queue (it is the only writer of these rows, and with no engine running no rows are
// added), its database role may delete exactly its agent's rows under the queue's row-level security
// policy (granted in migration 20261123010000), and the manager needs no scheduler that reaches into
// every tenant's rows. A row's `updated_at` is when it was finished, since nothing writes it after.
// Plain SQL: Prisma cannot say DELETE … LIMIT.
import { defineRetention } from '../retention/prune-in-batches.js';

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

const inboundRetention = defineRetention({
  statement: PRUNE,
  // Rows per DELETE: each statement holds few locks and writes little WAL at once.
  batchSize: 1000,
  // Batches per pass: a backlog is worked off over several passes, none of which runs for long.
  maxBatches: 50,
  what: 'finished inbound messages',
  component: 'inbound-retention',
  intervalMs: 60 * 60 * 1000,
});

/** Deletes batch after batch while a full batch was deleted, at most `maxBatches` of them. */
export const pruneFinishedMessages = inboundRetention.prune;
/** Prunes at start, then every hour, until stopped. */
export const startInboundPruner = inboundRetention.start;
