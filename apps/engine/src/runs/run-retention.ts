// Deletes this agent's finished runs, with their events (a trigger on agent_runs), once they finished longer
// ago than the retention period; the engine prunes its own runs as it prunes its WhatsApp queue
// (whatsapp/inbound-retention.ts says why). Running and pending runs are never touched.
import { defineRetention } from '../retention/prune-in-batches.js';

// SKIP LOCKED and MATERIALIZED as in inbound-retention.ts.
const PRUNE = `
  WITH doomed AS MATERIALIZED (
    SELECT agent_id, id FROM agent_runs
    WHERE agent_id = $1 AND status NOT IN ('pending', 'running')
      AND finished_at < now() - $2::float8 * interval '1 millisecond'
    LIMIT $3
    FOR UPDATE SKIP LOCKED)
  DELETE FROM agent_runs r USING doomed WHERE r.agent_id = doomed.agent_id AND r.id = doomed.id`;

const runRetention = defineRetention({
  statement: PRUNE,
  // Runs per DELETE: each takes its events along, so batches are smaller than the queue's.
  batchSize: 500,
  maxBatches: 50,
  what: 'finished runs',
  component: 'run-retention',
  intervalMs: 60 * 60 * 1000,
});

export const pruneFinishedRuns = runRetention.prune;
/** Prunes at start, then every hour, until stopped. */
export const startRunPruner = runRetention.start;
