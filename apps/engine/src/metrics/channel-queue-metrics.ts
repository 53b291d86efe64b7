// The channel queue's depth and the age of its oldest message per provider, read when scraped: one
// count on the (agent_id, status) index, cut short so that a slow database makes a scrape miss the
// figures, not hang.
import type { Logger } from '@agentplane/server-kit';
import type pg from 'pg';
import type { AgentDb } from '../database/agent-db.js';

const QUEUE_QUERY_TIMEOUT_MS = 1000;

const WAITING = `
  SELECT provider, count(*)::int AS depth, extract(epoch FROM now() - min(created_at))::float8 AS oldest
  FROM inbound_messages WHERE agent_id = $1 AND status IN ('pending', 'processing')
  GROUP BY provider`;

/** A provider's waiting messages: none of a provider without any. */
export type ChannelWaiting = { provider: string; depth: number; oldest: number };

/** The agent's waiting messages by provider; undefined when the database did not answer in time. */
export async function readChannelWaiting(
  db: AgentDb,
  agentId: string,
  logger: Logger,
): Promise<ChannelWaiting[] | undefined> {
  try {
    const { rows } = await db.query<ChannelWaiting>({
      text: WAITING,
      values: [agentId],
      query_timeout: QUEUE_QUERY_TIMEOUT_MS,
    } as pg.QueryConfig);
    return rows;
  } catch (error) {
    logger.warn({ err: error }, 'could not read the channel queue for the metrics');
    return undefined;
  }
}
