// A run's events as a log in run_events: appended in batches so the live stream never waits for the
// database (a batch is written after FLUSH_DELAY_MS or once FLUSH_BATCH_SIZE events wait, whichever
// comes first), each batch in one statement that also moves the run's last_seq and announces it. The
// stored text is the exact `data:` payload the live client got, so a replay sends the same bytes.
// Batches written while the run goes on commit without waiting for the WAL to reach the disk: the
// run's end commits synchronously (recorded-run.ts), and its flush carries every record before it, so
// only a database crash during the run can lose them, when the run is lost anyway (run-leases.ts).
// The statement goes by name: each connection parses and plans it once.
import type { Logger } from '@agentplane/server-kit';
import type { AgentDb } from '../database/agent-db.js';
import { notifyOnRunChannel } from '../listen/agent-channels.js';
import { RUN_NEWS_SQL } from './run-notifications.js';

export const FLUSH_DELAY_MS = 50;
export const FLUSH_BATCH_SIZE = 100;

// The events are taken from the run's own row, as every write to run_events is (no foreign key checks
// them: migration 20261127010000): a run deleted meanwhile gets none. set_config is local to the
// statement's own transaction: the statement is alone in it.
const APPEND = {
  name: 'append-run-events',
  text: `
  WITH moved AS (
    UPDATE agent_runs SET last_seq = $5 WHERE agent_id = $1 AND id = $2
    RETURNING id),
  appended AS (
    INSERT INTO run_events (agent_id, run_id, seq, data)
    SELECT $1, moved.id, t.seq, t.data FROM moved, unnest($3::int[], $4::text[]) AS t(seq, data))
  SELECT ${notifyOnRunChannel(RUN_NEWS_SQL('$2'))}, set_config('synchronous_commit', 'off', true)`,
};

export type StoredEvent = { seq: number; data: string };

export type EventLog = {
  /** Queues the event; it is stored with the next batch. */
  append: (seq: number, data: string) => void;
  /**
   * Waits for the batches already being written and hands back the events still queued, unwritten:
   * the run's end stores them with its final status (run-records.ts, finishRun).
   */
  drain: () => Promise<StoredEvent[]>;
};

/** The log of an engine whose event log is off (ENGINE_RUN_EVENT_LOG): it keeps nothing. */
export const NO_EVENT_LOG: EventLog = { append: () => undefined, drain: async () => [] };

/**
 * Stores a batch of a run still going and moves its last_seq, in a transaction of its own (never the
 * caller's: it would commit that one unflushed too). The run's end stores its last events itself.
 */
export async function appendEvents(db: AgentDb, agentId: string, runId: string, batch: StoredEvent[]): Promise<void> {
  if (batch.length === 0) return;
  await db.query({
    ...APPEND,
    values: [agentId, runId, batch.map((event) => event.seq), batch.map((event) => event.data), batch.at(-1)?.seq],
  });
}

export function createEventLog(db: AgentDb, agentId: string, runId: string, log: Logger): EventLog {
  let queued: StoredEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  // Batches are written one after another, so a run's events are stored in order.
  let writing: Promise<void> = Promise.resolve();

  const take = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = queued;
    queued = [];
    return batch;
  };

  const flush = () => {
    const batch = take();
    writing = writing.then(() =>
      appendEvents(db, agentId, runId, batch).catch((error: unknown) =>
        log.error({ err: error, events: batch.length }, 'could not store run events'),
      ),
    );
  };

  return {
    append: (seq, data) => {
      queued.push({ seq, data });
      if (queued.length >= FLUSH_BATCH_SIZE) flush();
      else timer ??= setTimeout(flush, FLUSH_DELAY_MS);
    },
    drain: async () => {
      await writing;
      return take();
    },
  };
}
