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

export type ThreadRow = { id: string; thread_id: string; created_at: Date; updated_at: Date; last_seq: number };
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

/** The owner condition from $2 on: a NULL owner (auth disabled) is matched with IS NULL, which `=` never is. */
function ownerClause(caller: ThreadCaller | undefined): { sql: string; values: string[] } {
  return caller === undefined
    ? { sql: 'issuer IS NULL AND subject IS NULL', values: [] }
    : { sql: 'issuer = $2 AND subject = $3', values: [caller.issuer, caller.subject] };
}

// Messaging threads (WhatsApp) have no thread_id and are not the caller's to list.
export async function countThreads(db: Queryable, agentId: string, caller: ThreadCaller | undefined): Promise<number> {
  const owner = ownerClause(caller);
  const { rows } = await db.query<{ total: string }>(
    `SELECT count(*) AS total FROM conversation_threads WHERE agent_id = $1 AND thread_id IS NOT NULL AND ${owner.sql}`,
    [agentId, ...owner.values],
  );
  return Number(rows[0]?.total ?? 0);
}

/** Newest first by updated_at, then id; `limit` rows after the cursor. */
export async function listThreads(
  db: Queryable,
  page: { agentId: string; caller: ThreadCaller | undefined; limit: number; after?: PageCursor | undefined },
): Promise<ThreadRow[]> {
  const owner = ownerClause(page.caller);
  const values: unknown[] = [page.agentId, ...owner.values];
  const param = (value: unknown) => `$${values.push(value)}`;
  const after =
    page.after === undefined
      ? ''
      : `AND (updated_at, id::text) < (${param(page.after.at)}::timestamptz, ${param(page.after.id)})`;
  const { rows } = await db.query<ThreadRow>(
    `SELECT id::text, thread_id, created_at, updated_at, last_seq FROM conversation_threads
     WHERE agent_id = $1 AND thread_id IS NOT NULL AND ${owner.sql} ${after}
     ORDER BY updated_at DESC, id::text DESC LIMIT ${param(page.limit)}`,
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
