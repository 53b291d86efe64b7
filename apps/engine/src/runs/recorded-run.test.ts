// The end of a stored run: its last events, the writes that go with it (its thread's append) and its
// final status commit together, and a failure of one part still lets the others be stored. With the
// event log off (ENGINE_RUN_EVENT_LOG=off) the run is still a record, without its events. A batch stored
// while the run goes on takes the run from its row: a run deleted meanwhile gets no events.
import { randomUUID } from 'node:crypto';
import { EventType } from '@ag-ui/core';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { createRunningRun } from '../testing/run-rows.js';
import { engineCredentialsFor } from '../testing/test-engine.js';
import { appendThreadMessages, loadThreadMessages } from '../threads/thread-store.js';
import { recordRun } from './recorded-run.js';
import { appendEvents } from './run-event-log.js';

const logger = createLogger({ name: 'recorded-run-test', level: 'silent' });
const OWNER = 'replica-under-test';

let database: TestDatabase;
let pool: pg.Pool;
let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  // As the agent's engine: its run news goes to a channel only its own role can read.
  pool = database.createPool({ url: (await engineCredentialsFor(database, agentId)).DATABASE_URL });
});

afterAll(async () => {
  await database?.drop();
});

type LastEvent = { type: EventType.RUN_FINISHED } | { type: EventType.RUN_ERROR; message: string; code?: string };

/** A running run with two events recorded (by default ending in RUN_FINISHED), none stored yet (they wait for their batch). */
async function runningRun({ eventLog = true, last = { type: EventType.RUN_FINISHED } as LastEvent } = {}) {
  const runId = randomUUID();
  await createRunningRun(pool, { agentId, runId, owner: OWNER });
  const recorded = recordRun({ pool, agentId, owner: OWNER, eventLog, spendTarget: () => undefined }, runId, logger);
  recorded.record({ type: EventType.RUN_STARTED, threadId: 'thread', runId });
  recorded.record(last.type === EventType.RUN_FINISHED ? { ...last, threadId: 'thread', runId } : last);
  return { runId, recorded };
}

const storedRun = async (db: pg.Pool | pg.PoolClient, runId: string) =>
  (
    await db.query<{ status: string; last_seq: number; events: number }>(
      `SELECT status, last_seq, (SELECT count(*)::int FROM run_events e WHERE e.agent_id = r.agent_id AND e.run_id = r.id) AS events
       FROM agent_runs r WHERE agent_id = $1 AND id = $2`,
      [agentId, runId],
    )
  ).rows[0];

describe('the end of a recorded run', () => {
  it('commits its last events, the writes that go with it and its final status in one transaction', async () => {
    const { runId, recorded } = await runningRun();
    const key = `thread-of-${runId}`;
    const seen: { run?: unknown; thread?: unknown } = {};
    await recorded.finish(false, undefined, async (db) => {
      await appendThreadMessages(db, agentId, key, [{ id: 'm1', role: 'user', content: 'hello' }]);
      // Written on the run's end connection, yet no other connection sees it, nor any of the run's end.
      seen.thread = await loadThreadMessages(pool, agentId, key);
      seen.run = await storedRun(pool, runId);
    });
    expect(seen).toEqual({ thread: [], run: { status: 'running', last_seq: 0, events: 0 } });
    expect(await storedRun(pool, runId)).toEqual({ status: 'succeeded', last_seq: 2, events: 2 });
    expect(await loadThreadMessages(pool, agentId, key)).toHaveLength(1);
  });

  it("stores neither its status nor its last events once the run is no longer this replica's", async () => {
    const { runId, recorded } = await runningRun();
    // As the sweep leaves a run it declared lost: another owner's, or over.
    await pool.query("UPDATE agent_runs SET owner = 'another-replica' WHERE agent_id = $1 AND id = $2", [
      agentId,
      runId,
    ]);
    await recorded.finish(false);
    expect(await storedRun(pool, runId)).toEqual({ status: 'running', last_seq: 0, events: 0 });
  });

  it('still stores its events and final status when the write that goes with it fails', async () => {
    const { runId, recorded } = await runningRun();
    await recorded.finish(false, undefined, async () => {
      throw new Error('the thread cannot be stored');
    });
    expect(await storedRun(pool, runId)).toEqual({ status: 'succeeded', last_seq: 2, events: 2 });
  });

  it('with the event log off, stores the final status and the writes that go with it, and no events', async () => {
    const { runId, recorded } = await runningRun({ eventLog: false });
    let alongside = false;
    await recorded.finish(false, undefined, async () => {
      alongside = true;
    });
    expect(alongside).toBe(true);
    expect(await storedRun(pool, runId)).toEqual({ status: 'succeeded', last_seq: 0, events: 0 });
  });
});

describe("a run's error code", () => {
  const errorOf = async (runId: string) =>
    (
      await pool.query<{ status: string; error: string | null; error_code: string | null }>(
        'SELECT status, error, error_code FROM agent_runs WHERE agent_id = $1 AND id = $2',
        [agentId, runId],
      )
    ).rows[0];

  it("is stored, as the agent's own role, from the RUN_ERROR a run ended with", async () => {
    const { runId, recorded } = await runningRun({
      last: { type: EventType.RUN_ERROR, message: "The agent's daily budget is spent", code: 'BUDGET_EXCEEDED' },
    });
    await recorded.finish(false);
    expect(await errorOf(runId)).toEqual({
      status: 'failed',
      error: "The agent's daily budget is spent",
      error_code: 'BUDGET_EXCEEDED',
    });
  });

  it('is cut to 100 characters when a custom agent sends a longer one', async () => {
    const { runId, recorded } = await runningRun({
      last: { type: EventType.RUN_ERROR, message: 'Refused', code: 'X'.repeat(5000) },
    });
    await recorded.finish(false);
    expect((await errorOf(runId))?.error_code).toBe('X'.repeat(100));
  });

  it('is null for a RUN_ERROR without a code and for a run that succeeded', async () => {
    const failed = await runningRun({ last: { type: EventType.RUN_ERROR, message: 'The model is unreachable' } });
    await failed.recorded.finish(false);
    expect(await errorOf(failed.runId)).toEqual({
      status: 'failed',
      error: 'The model is unreachable',
      error_code: null,
    });
    const succeeded = await runningRun();
    await succeeded.recorded.finish(false);
    expect(await errorOf(succeeded.runId)).toEqual({ status: 'succeeded', error: null, error_code: null });
  });
});

describe('a batch of a run still going', () => {
  const eventsOf = async (runId: string) =>
    (await pool.query('SELECT seq FROM run_events WHERE agent_id = $1 AND run_id = $2 ORDER BY seq', [agentId, runId]))
      .rows;

  it('is stored with the run’s last_seq moved', async () => {
    const runId = randomUUID();
    await createRunningRun(pool, { agentId, runId, owner: OWNER });
    await appendEvents(pool, agentId, runId, [
      { seq: 1, data: '{}' },
      { seq: 2, data: '{}' },
    ]);
    expect(await eventsOf(runId)).toEqual([{ seq: 1 }, { seq: 2 }]);
    expect(await storedRun(pool, runId)).toEqual({ status: 'running', last_seq: 2, events: 2 });
  });

  it('is not stored for a run whose row is gone: no event outlives its run', async () => {
    const runId = randomUUID();
    await appendEvents(pool, agentId, runId, [{ seq: 1, data: '{}' }]);
    expect(await eventsOf(runId)).toEqual([]);
  });
});
