// The reads and the delete behind /agent/threads, in SQL on the engine's own role (the engine has no
// Prisma client; row-level security limits it to its agent's rows, and every query names the agent too).
// A thread is found by its scoped key (thread-scope.ts), so another subject's, issuer's or agent's
// thread is simply not there; the list filters on the owner columns the append records.
import type { Message } from '@ag-ui/core';
import { checkpointSchemaName } from '@agentplane/db/engine-roles';
import type { AgentClient, AgentDb } from '../database/agent-db.js';
import type { PageCursor } from './page-cursor.js';
import type { ThreadCaller } from './thread-scope.js';
import { type Queryable, withTransaction } from './thread-store.js';

export type RunRow = {
  id: string;
  status: string;
  source: string;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  error: string | null;
  usage: unknown;
};

export type ThreadRow = {
  id: string;
  thread_id: string;
  created_at: Date;
  updated_at: Date;
  last_seq: number;
  title: string | null;
};

/** Whose threads, and which of them: `search` matches titles, case-insensitively, anywhere in them. */
export type ThreadFilter = { agentId: string; caller: ThreadCaller | undefined; search?: string | undefined };

/** How much of the first user message a title keeps. */
export const THREAD_TITLE_LENGTH = 80;

// A thread's title is its first user message (text, or its first text part), on one line and cut short:
// computed when read, from the primary key's (thread_id, seq) order, so no column can drift from it.
const TITLE = `LEFT JOIN LATERAL (
    SELECT left(btrim(regexp_replace(CASE jsonb_typeof(m.message->'content')
        WHEN 'string' THEN m.message->>'content'
        WHEN 'array' THEN (SELECT part->>'text' FROM jsonb_array_elements(m.message->'content') part
                           WHERE part->>'type' = 'text' LIMIT 1)
      END, '\\s+', ' ', 'g')), ${THREAD_TITLE_LENGTH}) AS title
    FROM conversation_messages m
    WHERE m.thread_id = t.id AND m.agent_id = t.agent_id AND m.message->>'role' = 'user'
    ORDER BY m.seq LIMIT 1) opening ON true`;

/** A LIKE pattern that matches `text` literally: its wildcards and the escape character escaped. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/**
 * The FROM and WHERE of a list of the caller's threads, with its values: $1 the agent, then the owner
 * (a NULL owner, auth disabled, matched with IS NULL, which `=` never is), then the search. Messaging
 * threads (WhatsApp) have no thread_id and are not the caller's to list.
 */
function threadsOf(filter: ThreadFilter, withTitle: boolean) {
  const values: unknown[] = [filter.agentId];
  const param = (value: unknown) => `$${values.push(value)}`;
  const owner =
    filter.caller === undefined
      ? 't.issuer IS NULL AND t.subject IS NULL'
      : `t.issuer = ${param(filter.caller.issuer)} AND t.subject = ${param(filter.caller.subject)}`;
  const search = filter.search === undefined ? '' : `AND opening.title ILIKE ${param(containing(filter.search))}`;
  const join = withTitle || filter.search !== undefined ? TITLE : '';
  const sql = `FROM conversation_threads t ${join} WHERE t.agent_id = $1 AND t.thread_id IS NOT NULL AND ${owner} ${search}`;
  return { sql, values, param };
}

export async function countThreads(db: Queryable, filter: ThreadFilter): Promise<number> {
  const { sql, values } = threadsOf(filter, false);
  const { rows } = await db.query<{ total: string }>(`SELECT count(*) AS total ${sql}`, values);
  return Number(rows[0]?.total ?? 0);
}

/** Newest first by updated_at, then id; `limit` rows after the cursor, each with its title. */
export async function listThreads(
  db: Queryable,
  page: ThreadFilter & { limit: number; after?: PageCursor | undefined },
): Promise<ThreadRow[]> {
  const { sql, values, param } = threadsOf(page, true);
  const after =
    page.after === undefined
      ? ''
      : `AND (t.updated_at, t.id::text) < (${param(page.after.at)}::timestamptz, ${param(page.after.id)})`;
  const { rows } = await db.query<ThreadRow>(
    `SELECT t.id::text, t.thread_id, t.created_at, t.updated_at, t.last_seq, opening.title ${sql} ${after}
     ORDER BY t.updated_at DESC, t.id::text DESC LIMIT ${param(page.limit)}`,
    values,
  );
  return rows;
}

export type StoredThread = { created_at: Date; updated_at: Date; state: unknown; messages: Message[] };

export async function readThread(db: Queryable, agentId: string, key: string): Promise<StoredThread | undefined> {
  const { rows } = await db.query<Omit<StoredThread, 'messages'> & { messages: Message[] | null }>(
    `SELECT t.created_at, t.updated_at, t.state,
       (SELECT jsonb_agg(m.message ORDER BY m.seq) FROM conversation_messages m
        WHERE m.thread_id = t.id AND m.agent_id = t.agent_id) AS messages
     FROM conversation_threads t WHERE t.agent_id = $1 AND t.external_key = $2`,
    [agentId, key],
  );
  const row = rows[0];
  return row === undefined ? undefined : { ...row, messages: row.messages ?? [] };
}

/** A thread is known when it is stored or has runs (its first run may still be going). */
export async function threadExists(db: Queryable, agentId: string, key: string): Promise<boolean> {
  const { rows } = await db.query<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM conversation_threads WHERE agent_id = $1 AND external_key = $2)
         OR EXISTS (SELECT 1 FROM agent_runs WHERE agent_id = $1 AND thread_key = $2) AS known`,
    [agentId, key],
  );
  return rows[0]?.known === true;
}

/** The thread's runs, newest first by created_at, then id. */
export async function listThreadRuns(
  db: Queryable,
  page: { agentId: string; key: string; limit: number; after?: PageCursor | undefined },
): Promise<RunRow[]> {
  const values: unknown[] = [page.agentId, page.key];
  const param = (value: unknown) => `$${values.push(value)}`;
  const after =
    page.after === undefined
      ? ''
      : `AND (created_at, id) < (${param(page.after.at)}::timestamptz, ${param(page.after.id)})`;
  const { rows } = await db.query<RunRow>(
    `SELECT id, status, source, created_at, started_at, finished_at, error, usage FROM agent_runs
     WHERE agent_id = $1 AND thread_key = $2 ${after}
     ORDER BY created_at DESC, id DESC LIMIT ${param(page.limit)}`,
    values,
  );
  return rows;
}

export type DeleteOutcome = 'deleted' | 'not_found' | 'running';

/**
 * Removes the thread, its messages (cascade), its runs (their events go with them) and its LangGraph
 * checkpoints, in one transaction. The thread's runs are locked first, so a run cannot change
 * status between the check for a running one and the delete.
 */
export function deleteThread(
  pool: AgentDb,
  thread: { agentId: string; key: string; checkpointThreadId: string },
): Promise<DeleteOutcome> {
  const { agentId, key } = thread;
  return withTransaction(pool, async (client) => {
    const runs = await client.query<{ status: string }>(
      'SELECT status FROM agent_runs WHERE agent_id = $1 AND thread_key = $2 FOR UPDATE',
      [agentId, key],
    );
    if (runs.rows.some((run) => run.status === 'running')) return 'running';
    await client.query('DELETE FROM agent_runs WHERE agent_id = $1 AND thread_key = $2', [agentId, key]);
    const threads = await client.query('DELETE FROM conversation_threads WHERE agent_id = $1 AND external_key = $2', [
      agentId,
      key,
    ]);
    const checkpoints = await deleteCheckpoints(client, agentId, thread.checkpointThreadId);
    return runs.rowCount || threads.rowCount || checkpoints ? 'deleted' : 'not_found';
  });
}

// The agent's checkpoint schema exists once the manager provisioned its role; an engine on an
// older database without it has no checkpoints to delete.
const CHECKPOINT_TABLES = ['checkpoint_writes', 'checkpoint_blobs', 'checkpoints'];

async function deleteCheckpoints(client: AgentClient, agentId: string, threadId: string): Promise<number> {
  const schema = checkpointSchemaName(agentId);
  const { rows } = await client.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    `"${schema}".checkpoints`,
  ]);
  if (rows[0]?.present !== true) return 0;
  let deleted = 0;
  for (const table of CHECKPOINT_TABLES) {
    const result = await client.query(`DELETE FROM "${schema}".${table} WHERE thread_id = $1`, [threadId]);
    deleted += result.rowCount ?? 0;
  }
  return deleted;
}
