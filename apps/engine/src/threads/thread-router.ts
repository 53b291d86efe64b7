// GET /agent/threads (newest first, with titles, searchable), GET /agent/threads/{id}, GET /agent/threads/{id}/runs and DELETE /agent/threads/{id}:
// the caller's own AG-UI threads, behind the same bearer token as /agent/run. Database mode only.
import { describeUnstorableText, ZAguiId, ZPaginationQuery } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { type Request, type Response, Router } from 'express';
import { z } from 'zod';
import { requireBearer } from '../auth/require-bearer.js';
import type { AgentDb } from '../database/agent-db.js';
import { parseRequestPart } from '../http/parse-request-part.js';
import { listOpenInterrupts } from '../interrupts/interrupt-records.js';
import { getSnapshot, type SnapshotSource, useSnapshot } from '../snapshot/use-snapshot.js';
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

function pageQuery(req: Request) {
  const { limit, cursor } = parseRequestPart(ZPageQuery, req.query, 'query string');
  return { limit, after: afterCursor(cursor) };
}

function threadListQuery(req: Request) {
  const { limit, cursor, q } = parseRequestPart(ZThreadListQuery, req.query, 'query string');
  return { limit, after: afterCursor(cursor), search: q };
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

export function threadRouter(source: SnapshotSource, pool: AgentDb | undefined): Router {
  const router = Router();
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
  const scopeOf = (req: Request, res: Response) => {
    const agentId = getSnapshot(res).config.agent.id;
    const caller = callerOf(res.locals.claims);
    const threadId = req.params.id === undefined ? undefined : parseRequestPart(ZThreadParams, req.params, 'path').id;
    return { db: requirePool(), agentId, caller, threadId: threadId ?? '' };
  };
  router.use('/agent/threads', useSnapshot(source), requireBearer);

  router.get('/agent/threads', async (req, res) => {
    const { db, agentId, caller } = scopeOf(req, res);
    const { limit, after, search } = threadListQuery(req);
    const [rows, total] = await Promise.all([
      listThreads(db, { agentId, caller, search, limit: limit + 1, after }),
      countThreads(db, { agentId, caller, search }),
    ]);
    const page = pageOf(rows, limit, (row) => ({ at: row.updated_at, id: row.id }));
    sendPage(res, { ...page, items: page.items.map(threadItem) }, total);
  });

  router.get('/agent/threads/:id', async (req, res) => {
    const { db, agentId, caller, threadId } = scopeOf(req, res);
    const key = aguiThreadKey(agentId, caller, threadId);
    const [thread, interrupts] = await Promise.all([
      readThread(db, agentId, key),
      listOpenInterrupts(db, agentId, key),
    ]);
    if (thread === undefined) throw NOT_FOUND();
    // The interrupts its last run ended with that no run answered yet: what a reloaded client shows again.
    res.json({ thread_id: threadId, ...thread, interrupts });
  });

  router.get('/agent/threads/:id/runs', async (req, res) => {
    const { db, agentId, caller, threadId } = scopeOf(req, res);
    const { limit, after } = pageQuery(req);
    const key = aguiThreadKey(agentId, caller, threadId);
    const rows = await listThreadRuns(db, { agentId, key, limit: limit + 1, after });
    if (rows.length === 0 && !(await threadExists(db, agentId, key))) throw NOT_FOUND();
    const page = pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }));
    sendPage(res, { ...page, items: page.items.map(runItem) });
  });

  router.delete('/agent/threads/:id', async (req, res) => {
    const { db, agentId, caller, threadId } = scopeOf(req, res);
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

  return router;
}
