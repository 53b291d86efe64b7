// The caps on waiting runs: over HTTP, a run past the thread's or the caller's cap is a 429
// problem+json with Retry-After, on /agent/runs and on a queued /agent/run alike, and one caller's
// waiting runs leave another's cap alone; in the database, enqueues racing at the cap never both
// pass, on one thread or across one caller's threads.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { engineCredentialsFor, startDatabaseEngine } from '../testing/test-engine.js';
import { PENDING_RETRY_AFTER_SECONDS } from './pending-run-caps.js';
import { enqueueRun } from './run-control-records.js';

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
const SLOW_AGENT = 'slow-agent.js:createSlowAgent';
const LONG = '100000 5';

let database: TestDatabase;
let issuer: TestIssuer;
let agentId: string;
let quietAgentId: string;
let engine: RunningEngine;
let pool: pg.Pool;
let ada: string;
let bob: string;

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  // No engine serves it: its queued runs wait for as long as the test looks at them.
  quietAgentId = (await makeAgent(database.prisma, workspace.id)).id;
  const row = { agentId, workspaceId: workspace.id };
  const config = makeCustomEngineConfig(SLOW_AGENT, row);
  config.agent.config = { module: SLOW_AGENT, runs: { multitaskStrategy: 'enqueue' } };
  await writeConfigRow(database.prisma, row, 1, config);
  engine = await startDatabaseEngine(database, agentId, {
    ENGINE_AGENTS_DIR: FIXTURES,
    ENGINE_AUTH: 'oidc',
    ENGINE_OIDC_ISSUER: issuer.issuer,
    ENGINE_OIDC_AUDIENCE: issuer.audience,
    // One run at a time: the first holds the slot, so the others wait.
    ENGINE_RUN_QUEUE_CONCURRENCY: '1',
    ENGINE_PENDING_RUNS_PER_THREAD: '2',
    ENGINE_PENDING_RUNS_PER_SUBJECT: '3',
  });
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  // As the quiet agent's engine would: its run news goes to channels only its role can read.
  pool = database.createPool({ url: (await engineCredentialsFor(database, quietAgentId)).DATABASE_URL, max: 12 });
  ada = await issuer.sign({ sub: 'ada' });
  bob = await issuer.sign({ sub: 'bob' });
});

afterAll(async () => {
  await engine?.shutdown();
  await issuer?.close();
  await database?.drop();
});

function runOn(threadId: string) {
  return { ...makeRunAgentInput(LONG), threadId, runId: `run-${randomUUID()}` };
}

function post(path: string, body: unknown, token: string) {
  return fetch(`${engine.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

const pendingOf = (id: string) => database.prisma.agentRun.count({ where: { agentId: id, status: 'pending' } });

async function expectTooMany(response: Response, type: string, setting: string) {
  expect(response.status).toBe(429);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.headers.get('retry-after')).toBe(String(PENDING_RETRY_AFTER_SECONDS));
  const problem = (await response.json()) as { type: string; status: number; detail: string };
  expect(problem).toMatchObject({ type: `urn:agentplane:problem:${type}`, status: 429 });
  expect(problem.detail).toContain(setting);
}

describe('the caps on waiting runs, over HTTP', () => {
  it('answers a run past the thread cap or the caller cap with 429 and Retry-After, per caller', async () => {
    const busy = `thread-${randomUUID()}`;
    const going = runOn(busy);
    expect((await post('/agent/runs', going, ada)).status).toBe(202);
    await waitUntil(
      async () =>
        (await database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId, id: going.runId } } }))?.status ===
        'running',
      { what: 'the first run to take the only slot' },
    );

    // Two wait on the busy thread: its cap.
    for (let i = 0; i < 2; i++) expect((await post('/agent/runs', runOn(busy), ada)).status).toBe(202);
    await expectTooMany(await post('/agent/runs', runOn(busy), ada), 'pending-runs-per-thread', 'PER_THREAD');
    // A streaming run queued under enqueue is refused the same way, before its stream opens.
    await expectTooMany(await post('/agent/run', runOn(busy), ada), 'pending-runs-per-thread', 'PER_THREAD');

    // A third waits on another thread: ada's cap; a fourth, anywhere, is refused.
    expect((await post('/agent/runs', runOn(`thread-${randomUUID()}`), ada)).status).toBe(202);
    await expectTooMany(
      await post('/agent/runs', runOn(`thread-${randomUUID()}`), ada),
      'pending-runs-per-subject',
      'PER_SUBJECT',
    );
    expect(await pendingOf(agentId)).toBe(3);

    // Bob's runs are not ada's.
    expect((await post('/agent/runs', runOn(`thread-${randomUUID()}`), bob)).status).toBe(202);
    expect(await pendingOf(agentId)).toBe(4);
  });
});

describe('the caps on waiting runs, under concurrency', () => {
  const caller = { issuer: 'https://issuer.test', subject: 'racer' };
  const queued = (threadKey: string) => ({
    agentId: quietAgentId,
    runId: `run-${randomUUID()}`,
    threadId: threadKey,
    threadKey,
    caller,
    source: 'background' as const,
    input: { ...makeRunAgentInput('hi'), threadId: threadKey },
  });

  it("lets exactly the caller's cap through when ten enqueues on ten threads race", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        enqueueRun(pool, queued(`key-${randomUUID()}`), 'reject', { perThread: 10, perSubject: 3 }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'subject_queue_full')).toHaveLength(7);
    expect(await pendingOf(quietAgentId)).toBe(3);
  });

  it("lets exactly the thread's cap through when ten enqueues on one thread race", async () => {
    const threadKey = `key-${randomUUID()}`;
    const before = await pendingOf(quietAgentId);
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, () =>
        enqueueRun(pool, { ...queued(threadKey), caller: { ...caller, subject: 'other' } }, 'enqueue', {
          perThread: 2,
          perSubject: 100,
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome === 'thread_queue_full')).toHaveLength(8);
    expect(await pendingOf(quietAgentId)).toBe(before + 2);
  });
});
