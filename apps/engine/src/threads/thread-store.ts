// Conversation threads in PostgreSQL: one per agent and external key ("whatsapp:<agent>:<integration>:<phone>",
// "agui:<agent>:<issuer>:<subject>:<threadId>", see thread-scope.ts), holding the AG-UI messages of its finished runs in order.
import type { Message } from '@ag-ui/core';
import type { AgentClient, AgentDb } from '../database/agent-db.js';

export type Queryable = Pick<AgentDb | AgentClient, 'query'>;

/** How many stored messages a run sees at most: the newest, starting at a user turn. */
export const THREAD_HISTORY_LIMIT = 200;

/** Who an AG-UI thread belongs to and the state its run left; messaging threads have none. */
export type ThreadOwner = { threadId: string; issuer: string | null; subject: string | null; state: unknown };

// Every run makes this query and APPEND; they go by name, so each connection parses and plans them once.
const LOAD = `
  SELECT m.message FROM conversation_messages m
  JOIN conversation_threads t ON t.id = m.thread_id
  WHERE t.agent_id = $1 AND t.external_key = $2
  ORDER BY m.seq DESC LIMIT $3`;

// One statement: the upsert creates the thread or locks it and moves its last_seq past the new
// messages, and they are numbered from the value it returns. A concurrent append to the same thread
// waits for the lock and then sees the committed last_seq, so the two never share a seq. The owner
// columns come from the key's own scope, so they never change; a run that sent no state ($8 NULL)
// keeps the thread's last one.
const APPEND = `
  WITH thread AS (
    INSERT INTO conversation_threads (agent_id, external_key, last_seq, thread_id, issuer, subject, state)
    VALUES ($1, $2, $3, $5, $6, $7, $8)
    ON CONFLICT (agent_id, external_key)
    DO UPDATE SET last_seq = conversation_threads.last_seq + EXCLUDED.last_seq, updated_at = now(),
      thread_id = EXCLUDED.thread_id, issuer = EXCLUDED.issuer, subject = EXCLUDED.subject,
      state = COALESCE(EXCLUDED.state, conversation_threads.state)
    RETURNING id, last_seq
  )
  INSERT INTO conversation_messages (thread_id, agent_id, seq, message)
  SELECT thread.id, $1::uuid, thread.last_seq - $3 + t.ord, t.message
  FROM thread, jsonb_array_elements($4::jsonb) WITH ORDINALITY AS t(message, ord)`;

export async function loadThreadMessages(
  db: Queryable,
  agentId: string,
  key: string,
  limit = THREAD_HISTORY_LIMIT,
): Promise<Message[]> {
  const { rows } = await db.query<{ message: Message }>({
    name: 'load-thread-messages',
    text: LOAD,
    values: [agentId, key, limit],
  });
  const messages = rows.map((row) => row.message).reverse();
  // A history cut in the middle of a turn could start with a tool result whose call is gone.
  const start = rows.length < limit ? 0 : messages.findIndex((message) => message.role === 'user');
  return start < 0 ? [] : messages.slice(start);
}

/**
 * Appends to the thread, creating it if need be, and records its owner and state when given;
 * atomic alone, or part of the caller's transaction.
 */
export async function appendThreadMessages(
  db: Queryable,
  agentId: string,
  key: string,
  messages: Message[],
  owner?: ThreadOwner,
): Promise<void> {
  if (messages.length === 0 && owner?.state === undefined) return;
  await db.query({
    name: 'append-thread-messages',
    text: APPEND,
    values: [
      agentId,
      key,
      messages.length,
      JSON.stringify(messages),
      owner?.threadId ?? null,
      owner?.issuer ?? null,
      owner?.subject ?? null,
      owner?.state === undefined ? null : JSON.stringify(owner.state),
    ],
  });
}

export async function withTransaction<T>(pool: AgentDb, work: (client: AgentClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
