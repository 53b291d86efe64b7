// The WhatsApp queue's depth and the age of its oldest message, read when scraped: one count on the
// (agent_id, status) index, cut short so that a slow database makes a scrape miss the figures, not hang.
import { Gauge, type Logger, METRIC_PREFIX, type Registry } from '@agentplane/server-kit';
import type pg from 'pg';

const QUEUE_QUERY_TIMEOUT_MS = 1000;

const WAITING = `
  SELECT count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS oldest
  FROM inbound_messages WHERE agent_id = $1 AND status IN ('pending', 'processing')`;

type Waiting = { depth: number; oldest: number | null };

export function measureWhatsAppQueue(registry: Registry, options: { pool: pg.Pool; agentId: string; logger: Logger }) {
  const readWaiting = async (): Promise<Waiting | undefined> => {
    try {
      const { rows } = await options.pool.query<Waiting>({
        text: WAITING,
        values: [options.agentId],
        query_timeout: QUEUE_QUERY_TIMEOUT_MS,
      } as pg.QueryConfig);
      return rows[0];
    } catch (error) {
      options.logger.warn({ err: error }, 'could not read the WhatsApp queue for the metrics');
      return undefined;
    }
  };
  // A scrape collects both gauges at once: they share that scrape's one query.
  let reading: Promise<Waiting | undefined> | undefined;
  const waiting = () => {
    reading ??= readWaiting().finally(() => {
      reading = undefined;
    });
    return reading;
  };
  new Gauge({
    name: `${METRIC_PREFIX}whatsapp_queue_depth`,
    help: 'WhatsApp messages waiting for an answer or being answered (absent when the database did not answer in time).',
    registers: [registry],
    async collect() {
      this.reset();
      const row = await waiting();
      if (row !== undefined) this.set(row.depth);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}whatsapp_oldest_pending_age_seconds`,
    help: 'Age of the oldest WhatsApp message not answered yet (0 when none waits).',
    registers: [registry],
    async collect() {
      this.reset();
      const row = await waiting();
      if (row !== undefined) this.set(Math.max(row.oldest ?? 0, 0));
    },
  });
}
