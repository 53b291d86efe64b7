// The WhatsApp queue's depth and the age of its oldest message, read when scraped: one count on the
// (agent_id, status) index, cut short so that a slow database makes a scrape miss the figures, not hang.
import type { Logger } from '@agentplane/server-kit';
import type pg from 'pg';
import type { AgentDb } from '../database/agent-db.js';

const QUEUE_QUERY_TIMEOUT_MS = 1000;

const WAITING = `
  SELECT count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS oldest
  FROM inbound_messages WHERE agent_id = $1 AND status IN ('pending', 'processing')`;

export type WhatsAppWaiting = { depth: number; oldest: number | null };

/** The agent's waiting messages; undefined when the database did not answer in time. */
export async function readWhatsAppWaiting(
  db: AgentDb,
  agentId: string,
  logger: Logger,
): Promise<WhatsAppWaiting | undefined> {
  try {
    const { rows } = await db.query<WhatsAppWaiting>({
      text: WAITING,
      values: [agentId],
      query_timeout: QUEUE_QUERY_TIMEOUT_MS,
    } as pg.QueryConfig);
    return rows[0];
  } catch (error) {
    logger.warn({ err: error }, 'could not read the WhatsApp queue for the metrics');
    return undefined;
  }
}
