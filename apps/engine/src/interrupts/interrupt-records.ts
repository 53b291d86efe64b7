// A thread's interrupts in thread_interrupts (database mode): stored with the end of the run that
// raised them, claimed by the one run that answers them, read back for that run and for
// GET /agent/threads/{id}. Every query goes through the thread's scoped key, so a caller reaches only
// the interrupts of their own threads.
import type { Interrupt } from '@ag-ui/core';
import type { Queryable } from '../threads/thread-store.js';

export type InterruptRow = {
  id: string;
  tool_call_id: string | null;
  tool_name: string | null;
  arguments: Record<string, unknown> | null;
  interrupt: Interrupt;
  answer: { status: 'resolved' | 'cancelled'; payload?: unknown } | null;
  answered: boolean;
  expired: boolean;
  /** Claimed by the run being asked about. */
  resumed: boolean;
};

const COLUMNS = `i.id, i.tool_call_id, i.tool_name, i.arguments, i.interrupt, i.answer,
  i.answered_at IS NOT NULL AS answered, i.expires_at <= now() AS expired`;
const OF_THREAD = `FROM thread_interrupts i
  JOIN conversation_threads t ON t.id = i.thread_id AND t.agent_id = i.agent_id
  WHERE i.agent_id = $1 AND t.external_key = $2`;

export type NewInterrupt = {
  interrupt: Interrupt;
  toolCallId: string | undefined;
  toolName: string | undefined;
  arguments: unknown;
};

// After the run's thread append, in the same transaction: the thread row exists. An interrupt a
// resumed run ends with again (one still open) is already there.
const INSERT = `
  INSERT INTO thread_interrupts
    (agent_id, id, thread_id, run_id, reason, tool_call_id, tool_name, arguments, interrupt, expires_at)
  SELECT $1, x.interrupt->>'id', t.id, $3, x.interrupt->>'reason', x.interrupt->>'toolCallId', x.tool_name,
    x.arguments, x.interrupt, (x.interrupt->>'expiresAt')::timestamptz
  FROM conversation_threads t, unnest($4::jsonb[], $5::text[], $6::jsonb[]) AS x(interrupt, tool_name, arguments)
  WHERE t.agent_id = $1 AND t.external_key = $2
  ON CONFLICT (agent_id, id) DO NOTHING`;

export async function storeInterrupts(
  db: Queryable,
  agentId: string,
  threadKey: string,
  runId: string,
  interrupts: NewInterrupt[],
): Promise<void> {
  await db.query(INSERT, [
    agentId,
    threadKey,
    runId,
    interrupts.map((entry) => JSON.stringify(entry.interrupt)),
    interrupts.map((entry) => entry.toolName ?? null),
    interrupts.map((entry) => (entry.arguments === undefined ? null : JSON.stringify(entry.arguments))),
  ]);
}

/** The thread's interrupts with these ids, whatever their state. */
export async function findInterrupts(
  db: Queryable,
  agentId: string,
  threadKey: string,
  ids: string[],
): Promise<InterruptRow[]> {
  const { rows } = await db.query<InterruptRow>(
    `SELECT ${COLUMNS}, false AS resumed ${OF_THREAD} AND i.id = ANY($3::text[])`,
    [agentId, threadKey, ids],
  );
  return rows;
}

/**
 * Claims the interrupts for the run that answers them, in one statement: of two runs answering the
 * same interrupt, the row lock lets exactly one set answered_at. Returns how many it claimed; the
 * caller's transaction rolls back a partial claim.
 */
export async function claimInterrupts(
  db: Queryable,
  agentId: string,
  runId: string,
  answers: { id: string; answer: unknown }[],
): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE thread_interrupts i SET answered_at = now(), answered_by_run = $2, answer = x.answer
     FROM unnest($3::text[], $4::jsonb[]) AS x(id, answer)
     WHERE i.agent_id = $1 AND i.id = x.id AND i.answered_at IS NULL AND i.expires_at > now()`,
    [agentId, runId, answers.map((entry) => entry.id), answers.map((entry) => JSON.stringify(entry.answer))],
  );
  return rowCount ?? 0;
}

/** Gives back what a run claimed but never ran with (refused after its claim, e.g. another run is going). */
export async function releaseInterrupts(db: Queryable, agentId: string, runId: string): Promise<void> {
  await db.query(
    `UPDATE thread_interrupts SET answered_at = NULL, answered_by_run = NULL, answer = NULL
     WHERE agent_id = $1 AND answered_by_run = $2`,
    [agentId, runId],
  );
}

/** What a resuming run needs: the interrupts it claimed, and those of its thread still open. */
export async function resumeState(
  db: Queryable,
  agentId: string,
  threadKey: string,
  runId: string,
): Promise<InterruptRow[]> {
  const { rows } = await db.query<InterruptRow>(
    `SELECT ${COLUMNS}, i.answered_by_run IS NOT DISTINCT FROM $3 AS resumed ${OF_THREAD}
       AND (i.answered_by_run = $3 OR (i.answered_at IS NULL AND i.expires_at > now()))
     ORDER BY i.created_at, i.id`,
    [agentId, threadKey, runId],
  );
  return rows;
}

/** The thread's interrupts nobody answered yet and still answerable, oldest first. */
export async function listOpenInterrupts(db: Queryable, agentId: string, threadKey: string): Promise<Interrupt[]> {
  const { rows } = await db.query<{ interrupt: Interrupt }>(
    `SELECT i.interrupt ${OF_THREAD} AND i.answered_at IS NULL AND i.expires_at > now() ORDER BY i.created_at, i.id`,
    [agentId, threadKey],
  );
  return rows.map((row) => row.interrupt);
}

/** The tool approvals a run raised, answered or not, in the order it raised them. */
export async function runInterrupts(
  db: Queryable,
  agentId: string,
  runId: string,
): Promise<Pick<InterruptRow, 'id' | 'tool_name' | 'interrupt'>[]> {
  const { rows } = await db.query<Pick<InterruptRow, 'id' | 'tool_name' | 'interrupt'>>(
    `SELECT id, tool_name, interrupt FROM thread_interrupts WHERE agent_id = $1 AND run_id = $2 ORDER BY created_at, id`,
    [agentId, runId],
  );
  return rows;
}
