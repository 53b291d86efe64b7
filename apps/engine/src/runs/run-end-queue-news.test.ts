// When a run's end tells the agent's queues: only when a run of its thread waits behind it. The race
// that matters: a run queued behind it between the moment its FINISH statement took its snapshot and
// its commit. That run's own news comes before the end is committed (its claim finds the thread still
// taken), and the FINISH's snapshot cannot see it pending: only the mark the enqueue left on the
// running row, which the FINISH reads under the row's lock, makes the end wake the queues.
import { randomUUID } from 'node:crypto';
import {
  createTestDatabase,
  issueTestEngineCredentials,
  makeAgent,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { createRunningRun } from '../testing/run-rows.js';
import { enqueueRun } from './run-control-records.js';
import { finishRun } from './run-records.js';

const CAPS = { perThread: 1000, perSubject: 1000 };

let database: TestDatabase;
let agentId: string;
let engine: pg.Pool;
let listener: pg.Client;
let blocker: pg.Client;
const news: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  agentId = (await makeAgent(database.prisma, (await makeWorkspace(database.prisma)).id)).id;
  engine = database.createPool({ url: (await issueTestEngineCredentials(database, agentId)).DATABASE_URL, max: 4 });
  const channel = await database.prisma.engineChannel.findUniqueOrThrow({ where: { agentId } });
  listener = await database.connectClient();
  listener.on('notification', ({ payload }) => news.push(payload ?? ''));
  await listener.query(`LISTEN "${channel.runChannel}"`);
  blocker = await database.connectClient();
});

afterAll(async () => {
  await Promise.all([listener?.end(), blocker?.end(), engine?.end()]);
  await database?.drop();
});

/** Whether a backend running `sql` is waiting for a lock. */
async function isWaiting(sql: string): Promise<boolean> {
  const rows = await database.prisma.$queryRaw<unknown[]>`
    SELECT 1 FROM pg_stat_activity
    WHERE query LIKE ${`%${sql}%`} AND query NOT LIKE '%pg_stat_activity%' AND cardinality(pg_blocking_pids(pid)) > 0`;
  return rows.length > 0;
}

const queueNews = () => news.filter((payload) => payload === 'queue').length;

describe("a run's end", () => {
  it('wakes the queues when a run was queued behind it while it ended', async () => {
    const owner = 'replica-a';
    const going = `run-${randomUUID()}`;
    await createRunningRun(engine, { agentId, runId: going, owner });
    const queued = `run-${randomUUID()}`;
    // The enqueue is held after it marked the running run: its INSERT waits for an uncommitted row
    // with the same id, which is then rolled back.
    await blocker.query('BEGIN');
    await blocker.query(
      `INSERT INTO agent_runs (agent_id, id, thread_id, thread_key, source, status) VALUES ($1, $2, 't', 'other', 'background', 'pending')`,
      [agentId, queued],
    );
    const input = { ...makeRunAgentInput('hi'), threadId: 'thread', runId: queued };
    const enqueued = enqueueRun(
      engine,
      {
        agentId,
        runId: queued,
        threadId: 'thread',
        threadKey: `key-${going}`,
        caller: undefined,
        source: 'background',
        input,
      },
      'enqueue',
      CAPS,
    );
    await waitUntil(() => isWaiting('INSERT INTO agent_runs'), { what: 'the enqueue to wait' });
    // The end's snapshot is taken now, before the queued run exists; its UPDATE waits for the mark.
    const finished = finishRun(engine, { agentId, runId: going, owner }, { status: 'succeeded' });
    await waitUntil(() => isWaiting('WITH finished'), { what: "the run's end to wait for the enqueue" });
    const before = queueNews();
    await blocker.query('ROLLBACK');
    expect(await enqueued).toBeUndefined();
    await finished;
    // The enqueue's news, then the end's.
    await waitUntil(async () => queueNews() === before + 2, { what: 'both to tell the queues' });
  });

  it('does not wake the queues when no run of its thread waits', async () => {
    const owner = 'replica-a';
    const [alone, marker] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
    await createRunningRun(engine, { agentId, runId: alone, owner });
    await createRunningRun(engine, { agentId, runId: marker, owner });
    const before = news.length;
    await finishRun(engine, { agentId, runId: alone, owner }, { status: 'succeeded' });
    await finishRun(engine, { agentId, runId: marker, owner }, { status: 'succeeded' });
    // Notifications arrive in commit order: once the second end's run news is here, the first's would be.
    await waitUntil(async () => news.includes(`run:${marker}`), { what: "the second end's news" });
    expect(news.slice(before)).toEqual([`run:${alone}`, `run:${marker}`]);
  });
});
