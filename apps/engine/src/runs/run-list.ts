// A caller's runs, newest first, a page at a time (A2A's ListTasks): keyset paging on (created_at, id),
// so a page costs the same however deep it is, with the index on (agent_id, created_at) or, for one
// thread, on (agent_id, thread_key, created_at).
import type { ThreadCaller } from '../threads/thread-scope.js';
import type { Queryable } from '../threads/thread-store.js';
import { CALLERS_RUNS, RUN_RECORD_COLUMNS, type RunRecord, type RunStatus } from './run-records.js';

/** Where a page ends: the last run it holds; the next page starts after it. */
export type RunCursor = { createdAt: string; id: string };

export type RunListFilter = {
  /** One thread's runs only. */
  threadKey?: string | undefined;
  statuses?: readonly RunStatus[] | undefined;
  /** Runs whose status last changed after this time (started, or finished). */
  changedAfter?: Date | undefined;
};

const FILTERS = `${CALLERS_RUNS}
    AND ($4::text IS NULL OR thread_key = $4)
    AND ($5::"RunStatus"[] IS NULL OR status = ANY($5))
    AND ($6::timestamptz IS NULL OR COALESCE(finished_at, started_at, created_at) > $6)`;

// created_at is kept to the millisecond (timestamptz(3)), so its ISO text names it exactly.
const PAGE = `
  SELECT ${RUN_RECORD_COLUMNS} FROM agent_runs
  WHERE ${FILTERS}
    AND ($7::timestamptz IS NULL OR (created_at, id) < ($7, $8))
  ORDER BY created_at DESC, id DESC
  LIMIT $9`;
const COUNT = `SELECT count(*)::int AS total FROM agent_runs WHERE ${FILTERS}`;

export async function listCallersRuns(
  db: Queryable,
  agentId: string,
  caller: ThreadCaller | undefined,
  options: { filter: RunListFilter; after?: RunCursor | undefined; limit: number },
): Promise<{ runs: RunRecord[]; total: number; next: RunCursor | undefined }> {
  const { filter, after, limit } = options;
  const filters = [
    agentId,
    caller?.issuer ?? null,
    caller?.subject ?? null,
    filter.threadKey ?? null,
    filter.statuses ?? null,
    filter.changedAfter ?? null,
  ];
  // One more than the page, to know whether a next page exists.
  const [page, count] = await Promise.all([
    db.query<RunRecord>(PAGE, [...filters, after?.createdAt ?? null, after?.id ?? null, limit + 1]),
    db.query<{ total: number }>(COUNT, filters),
  ]);
  const runs = page.rows.slice(0, limit);
  const last = runs.at(-1);
  const next =
    page.rows.length > limit && last !== undefined
      ? { createdAt: last.created_at.toISOString(), id: last.id }
      : undefined;
  return { runs, total: count.rows[0]?.total ?? 0, next };
}
