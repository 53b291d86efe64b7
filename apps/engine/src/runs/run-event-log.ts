// A run's events as a log in run_events: appended in batches so the live stream never waits for the
// database (a batch is written after FLUSH_DELAY_MS or once FLUSH_BATCH_SIZE events wait, whichever
// comes first), each batch in one statement that also moves the run's last_seq and announces it. The
// stored text is the exact `data:` payload the live client got, so a replay sends the same bytes.
import type { Logger } from '@agentplane/server-kit';
import type { Queryable } from '../threads/thread-store.js';
import { RUN_EVENTS_CHANNEL } from './run-records.js';

export const FLUSH_DELAY_MS = 50;
export const FLUSH_BATCH_SIZE = 100;

const APPEND = `
  WITH appended AS (
    INSERT INTO run_events (agent_id, run_id, seq, data)
    SELECT $1, $2, t.seq, t.data FROM unnest($3::int[], $4::text[]) AS t(seq, data)),
  moved AS (
    UPDATE agent_runs SET last_seq = $5 WHERE agent_id = $1 AND id = $2)
  SELECT pg_notify('${RUN_EVENTS_CHANNEL}', $1 || ':' || $2)`;

export type EventLog = {
  /** Queues the event; it is stored with the next batch. */
  append: (seq: number, data: string) => void;
  /** Stores everything queued; resolves once it is stored, or the failure is logged. */
  flush: () => Promise<void>;
};

export function createEventLog(db: Queryable, agentId: string, runId: string, log: Logger): EventLog {
  let queued: { seq: number; data: string }[] = [];
  let timer: NodeJS.Timeout | undefined;
  // Batches are written one after another, so a run's events are stored in order.
  let writing: Promise<void> = Promise.resolve();

  const write = (batch: typeof queued) =>
    db
      .query(APPEND, [
        agentId,
        runId,
        batch.map((event) => event.seq),
        batch.map((event) => event.data),
        batch.at(-1)?.seq,
      ])
      .then(
        () => undefined,
        (error: unknown) => log.error({ err: error, events: batch.length }, 'could not store run events'),
      );

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queued.length > 0) {
      const batch = queued;
      queued = [];
      writing = writing.then(() => write(batch));
    }
    return writing;
  };

  return {
    append: (seq, data) => {
      queued.push({ seq, data });
      if (queued.length >= FLUSH_BATCH_SIZE) void flush();
      else timer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
    },
    flush,
  };
}

export type StoredEvent = { seq: number; data: string };

const READ = `
  SELECT seq, data FROM run_events WHERE agent_id = $1 AND run_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`;

/** The run's stored events after `afterSeq`, oldest first, at most `limit`. */
export async function readEvents(
  db: Queryable,
  agentId: string,
  runId: string,
  afterSeq: number,
  limit: number,
): Promise<StoredEvent[]> {
  const { rows } = await db.query<StoredEvent>(READ, [agentId, runId, afterSeq, limit]);
  return rows;
}
