// GET /agent/threads (newest first, with titles, searchable), GET /agent/threads/{id}, GET /agent/threads/{id}/runs and DELETE /agent/threads/{id}:
// the caller's own AG-UI threads, behind the same bearer token as /agent/run. Database mode only.
import { describeUnstorableText, ZAguiId, ZPaginationQuery } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { Response } from 'express';
import { z } from 'zod';
import type { AgentDb } from '../database/agent-db.js';
import type { EngineApi, EngineRouteSpec } from '../http/engine-api.js';
import { listOpenInterrupts } from '../interrupts/interrupt-records.js';
import { ZRunSummary } from '../runs/run-schemas.js';
import { getSnapshot } from '../snapshot/use-snapshot.js';
import { aguiThreadKey } from './agui-threads.js';
import { decodeCursor, pageOf } from './page-cursor.js';
import {
  countThreads,
  deleteThread,
  listThreadRuns,
  listThreads,
  type RunRow,
  readThread,
  type ThreadRow,
  threadExists,
} from './thread-queries.js';
import { callerOf, scopedThreadId } from './thread-scope.js';

// The same rule as a run input's threadId: no other thread can exist.
const ZThreadParams = z.object({ id: ZAguiId });
const ZPageQuery = ZPaginationQuery.pick({ limit: true }).extend({
  cursor: z.string().optional().meta({ description: 'X-Next-Cursor of the previous page' }),
});

// What a search box sends: bounded, and text PostgreSQL can compare; blank is no search.
const SEARCH_MAX_LENGTH = 200;
const ZThreadListQuery = ZPageQuery.extend({
  q: z
    .string()
    .max(SEARCH_MAX_LENGTH)
    .refine((text) => describeUnstorableText(text) === undefined, {
      error: 'Must not contain a NUL character or a lone UTF-16 surrogate',
    })
    .transform((text) => text.trim() || undefined)
    .optional()
    .meta({ description: 'Only threads whose title (the start of their first user message) contains this' }),
});

const afterCursor = (cursor: string | undefined) => (cursor === undefined ? undefined : decodeCursor(cursor));

function pageOfQuery({ limit, cursor }: { limit: number; cursor?: string | undefined }) {
  return { limit, after: afterCursor(cursor) };
}

/** Lists answer a plain array, as the manager's do; X-Next-Cursor names the next page when there is one. */
function sendPage<T>(res: Response, page: { items: T[]; next?: string }, total?: number): void {
  if (page.next !== undefined) res.set('X-Next-Cursor', page.next);
  if (total !== undefined) res.set('X-Total-Count', String(total));
  res.json(page.items);
}

const threadItem = (row: ThreadRow) => ({
  thread_id: row.thread_id,
  created_at: row.created_at,
  updated_at: row.updated_at,
  title: row.title,
  // Messages are only ever appended, so last_seq is the count: no join, and no content in a list.
  message_count: row.last_seq,
});

const runItem = (row: RunRow) => ({
  id: row.id,
  status: row.status,
  source: row.source,
  created_at: row.created_at,
  started_at: row.started_at,
  finished_at: row.finished_at,
  error: row.error,
  usage: row.usage ?? null,
});

const NOT_FOUND = () => new AppError('not_found', 'No such thread.');

const NO_THREAD = "No such thread, or not one of the caller's";
const NO_DATABASE = 'The engine has no database: threads are stored only in database mode';
const ZPageHeaders = z.object({
  'X-Next-Cursor': z.string().optional().meta({ description: 'The cursor of the next page, when there is one' }),
});
const ZThreadItem = z
  .object({
    thread_id: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    title: z.string().nullable().meta({ description: 'The start of its first user message, on one line' }),
    message_count: z.number().int(),
  })
  .meta({ id: 'ThreadItem' });
const ZThread = z
  .object({
    thread_id: z.string(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    state: z.unknown().meta({ description: "The agent's state after the thread's last run" }),
    messages: z.array(z.record(z.string(), z.unknown())).meta({ description: 'AG-UI messages, oldest first' }),
    interrupts: z.array(z.record(z.string(), z.unknown())).meta({
      description:
        "AG-UI interrupts the thread's last run ended with that no run answered yet and that have not expired: what a reloaded client shows again",
    }),
  })
  .meta({ id: 'Thread' });

export const THREAD_ROUTES = {
  list: {
    method: 'get',
    path: '/agent/threads',
    operationId: 'listThreads',
    summary: "The caller's threads, most recently updated first",
    tag: 'threads',
    access: { kind: 'bearer' },
    query: ZThreadListQuery,
    responses: {
      200: {
        description: 'A page of threads',
        schema: z.array(ZThreadItem),
        headers: ZPageHeaders.extend({ 'X-Total-Count': z.string() }),
      },
    },
    problems: { 503: NO_DATABASE },
  },
  get: {
    method: 'get',
    path: '/agent/threads/:id',
    operationId: 'getThread',
    summary: 'A thread: its messages, state and open interrupts',
    tag: 'threads',
    access: { kind: 'bearer' },
    params: ZThreadParams,
    responses: { 200: { description: 'The thread', schema: ZThread } },
    problems: { 404: NO_THREAD, 503: NO_DATABASE },
  },
  runs: {
    method: 'get',
    path: '/agent/threads/:id/runs',
    operationId: 'listThreadRuns',
    summary: "A thread's runs, newest first",
    tag: 'threads',
    access: { kind: 'bearer' },
    params: ZThreadParams,
    query: ZPageQuery,
    responses: { 200: { description: 'A page of runs', schema: z.array(ZRunSummary), headers: ZPageHeaders } },
    problems: { 404: NO_THREAD, 503: NO_DATABASE },
  },
  delete: {
    method: 'delete',
    path: '/agent/threads/:id',
    operationId: 'deleteThread',
    summary: 'Deletes a thread, its messages and its checkpoints',
    tag: 'threads',
    access: { kind: 'bearer' },
    params: ZThreadParams,
    responses: { 204: { description: 'Deleted' } },
    problems: { 404: NO_THREAD, 409: 'A run of the thread is still going', 503: NO_DATABASE },
  },
} satisfies Record<string, EngineRouteSpec>;

export function addThreadRoutes(api: EngineApi, pool: AgentDb | undefined): void {
  const requirePool = (): AgentDb => {
    if (pool === undefined) {
      throw new AppError(
        'service_unavailable',
        'Threads are stored only in database mode: set DATABASE_URL (with AGENT_ID, or beside ENGINE_CONFIG_FILE).',
      );
    }
    return pool;
  };
  /** Who asks and which of their threads: the scope every query is keyed by. */
  const scopeOf = (res: Response, params?: { id: string }) => {
    const agentId = getSnapshot(res).config.agent.id;
    const caller = callerOf(res.locals.claims);
    return { db: requirePool(), agentId, caller, threadId: params?.id ?? '' };
  };

  api.add(THREAD_ROUTES.list, async ({ query }, _req, res) => {
    const { db, agentId, caller } = scopeOf(res);
    const { limit, after } = pageOfQuery(query);
    const search = query.q;
    const [rows, total] = await Promise.all([
      listThreads(db, { agentId, caller, search, limit: limit + 1, after }),
      countThreads(db, { agentId, caller, search }),
    ]);
    const page = pageOf(rows, limit, (row) => ({ at: row.updated_at, id: row.id }));
    sendPage(res, { ...page, items: page.items.map(threadItem) }, total);
  });

  api.add(THREAD_ROUTES.get, async ({ params }, _req, res) => {
    const { db, agentId, caller, threadId } = scopeOf(res, params);
    const key = aguiThreadKey(agentId, caller, threadId);
    const [thread, interrupts] = await Promise.all([
      readThread(db, agentId, key),
      listOpenInterrupts(db, agentId, key),
    ]);
    if (thread === undefined) throw NOT_FOUND();
    // The interrupts its last run ended with that no run answered yet: what a reloaded client shows again.
    res.json({ thread_id: threadId, ...thread, interrupts });
  });

  api.add(THREAD_ROUTES.runs, async ({ params, query }, _req, res) => {
    const { db, agentId, caller, threadId } = scopeOf(res, params);
    const { limit, after } = pageOfQuery(query);
    const key = aguiThreadKey(agentId, caller, threadId);
    const rows = await listThreadRuns(db, { agentId, key, limit: limit + 1, after });
    if (rows.length === 0 && !(await threadExists(db, agentId, key))) throw NOT_FOUND();
    const page = pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }));
    sendPage(res, { ...page, items: page.items.map(runItem) });
  });

  api.add(THREAD_ROUTES.delete, async ({ params }, _req, res) => {
    const { db, agentId, caller, threadId } = scopeOf(res, params);
    const outcome = await deleteThread(db, {
      agentId,
      key: aguiThreadKey(agentId, caller, threadId),
      // The LangGraph thread of this AG-UI thread (see agents/langgraph/langgraph-agent.ts).
      checkpointThreadId: scopedThreadId(agentId, caller, threadId),
    });
    if (outcome === 'not_found') throw NOT_FOUND();
    if (outcome === 'running') {
      throw new AppError('conflict', 'A run of this thread is still going; cancel it or wait for it to end.');
    }
    res.status(204).end();
  });
}
