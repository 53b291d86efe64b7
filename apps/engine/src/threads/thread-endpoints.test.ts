// /agent/threads on real engines in database mode: a CUSTOM agent that leaves state, tokens from a real
// oidc-provider, and runs written as the database owner (the run records are another feature's).
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { checkpointSchemaName } from '@agentplane/db/engine-roles';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { startDatabaseEngine, startFileEngine } from '../testing/test-engine.js';
import { aguiThreadKey } from './agui-threads.js';
import { scopedThreadId, type ThreadCaller } from './thread-scope.js';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

let database: TestDatabase;
let issuer: TestIssuer;
let engine: RunningEngine;
/** An agent without SSO, its engine with auth disabled: its threads have no owner. */
let openEngine: RunningEngine;
let openAgentId: string;
let agentId: string;
let otherAgentId: string;
let alice: string;
let bob: string;
let aliceCaller: ThreadCaller;

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  otherAgentId = (await makeAgent(database.prisma, workspace.id)).id;
  openAgentId = (await makeAgent(database.prisma, workspace.id)).id;
  const configOf = (id: string) =>
    makeCustomEngineConfig('state-agent.js:createStateAgent', { agentId: id, workspaceId: workspace.id });
  const sso = { issuer: issuer.issuer, audience: issuer.audience, algorithms: ['RS256' as const] };
  await database.prisma.engineConfig.createMany({
    data: [
      { agentId, workspaceId: workspace.id, version: 1n, config: { ...configOf(agentId), sso } },
      { agentId: openAgentId, workspaceId: workspace.id, version: 1n, config: configOf(openAgentId) as object },
    ],
  });
  const env = { ENGINE_AGENTS_DIR: FIXTURES, ENGINE_CONFIG_POLL_MS: '50' };
  engine = await startDatabaseEngine(database, agentId, { ...env, ENGINE_AUTH: 'oidc' });
  openEngine = await startDatabaseEngine(database, openAgentId, env);
  for (const running of [engine, openEngine]) {
    await waitUntil(async () => (await fetch(`${running.url}/health`)).status === 200, { what: 'the config to load' });
  }
  alice = await issuer.sign({ sub: 'alice' });
  bob = await issuer.sign({ sub: 'bob' });
  aliceCaller = { issuer: issuer.issuer, subject: 'alice' };
});

afterAll(async () => {
  await engine?.shutdown();
  await openEngine?.shutdown();
  await issuer?.close();
  await database?.drop();
});

const auth = (token: string | undefined): Record<string, string> =>
  token === undefined ? {} : { Authorization: `Bearer ${token}` };

async function say(token: string | undefined, threadId: string, content: string, on = engine): Promise<void> {
  const response = await fetch(`${on.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth(token) },
    body: JSON.stringify({
      threadId,
      runId: randomUUID(),
      messages: [{ id: randomUUID(), role: 'user', content }],
      tools: [],
      context: [],
      state: {},
    }),
  });
  expect(response.status).toBe(200);
  expect(await response.text()).toContain('RUN_FINISHED');
}

const call = (path: string, token: string | undefined, init: RequestInit = {}, on = engine) =>
  fetch(`${on.url}${path}`, { ...init, headers: auth(token) });

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  return (await response.json()) as T;
}

async function expectProblem(response: Response, status: number, detail?: RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
  const body = (await response.json()) as { status: number; detail: string };
  expect(body.status).toBe(status);
  if (detail !== undefined) expect(body.detail).toMatch(detail);
  expect(JSON.stringify(body)).not.toMatch(/SELECT|at .*\.ts:\d+/);
}

/** A thread row as another owner would have it, written as the database owner. */
async function storeForeignThread(owner: { agentId: string; caller: ThreadCaller | undefined }, threadId: string) {
  await database.prisma.conversationThread.create({
    data: {
      agentId: owner.agentId,
      externalKey: aguiThreadKey(owner.agentId, owner.caller, threadId),
      threadId,
      issuer: owner.caller?.issuer ?? null,
      subject: owner.caller?.subject ?? null,
      lastSeq: 0,
    },
  });
}

async function insertRun(
  threadId: string,
  run: { id: string; status: string; createdAt: string; caller?: ThreadCaller },
) {
  const caller = run.caller ?? aliceCaller;
  await database.prisma.$executeRaw`
    INSERT INTO agent_runs (id, agent_id, thread_id, thread_key, issuer, subject, source, status, created_at, started_at, error, usage)
    VALUES (${run.id}, ${agentId}::uuid, ${threadId}, ${aguiThreadKey(agentId, caller, threadId)}, ${caller.issuer},
      ${caller.subject}, 'stream', ${run.status}::"RunStatus", ${run.createdAt}::timestamptz, ${run.createdAt}::timestamptz,
      ${run.status === 'failed' ? 'engine lost' : null}, ${JSON.stringify({ input_tokens: 3 })}::jsonb)`;
}

const threadRow = (caller: ThreadCaller | undefined, threadId: string) =>
  database.prisma.conversationThread.findUnique({
    where: { agentId_externalKey: { agentId, externalKey: aguiThreadKey(agentId, caller, threadId) } },
  });

describe('a stored AG-UI thread', () => {
  it("records the client's threadId, the token's issuer and subject, and the state the last run left", async () => {
    await say(alice, 'state-thread', 'one');
    await say(alice, 'state-thread', 'two');
    const row = await threadRow(aliceCaller, 'state-thread');
    expect(row).toMatchObject({ threadId: 'state-thread', issuer: issuer.issuer, subject: 'alice' });
    // The snapshot says turns 2 and heard []; the delta after it added 'two'.
    expect(row?.state).toEqual({ turns: 2, heard: ['two'] });

    const thread = await json<{ thread_id: string; state: unknown; messages: { role: string; content: string }[] }>(
      await call('/agent/threads/state-thread', alice),
    );
    expect(thread.thread_id).toBe('state-thread');
    expect(thread.state).toEqual({ turns: 2, heard: ['two'] });
    expect(thread.messages.map(({ role, content }) => `${role}: ${content}`)).toEqual([
      'user: one',
      'assistant: echo: one',
      'user: two',
      'assistant: echo: two',
    ]);
  });

  it('has no owner when auth is disabled, and then only threads without an owner are listed', async () => {
    await say(undefined, 'open-thread', 'hello', openEngine);
    const row = await database.prisma.conversationThread.findUnique({
      where: {
        agentId_externalKey: {
          agentId: openAgentId,
          externalKey: aguiThreadKey(openAgentId, undefined, 'open-thread'),
        },
      },
    });
    expect(row).toMatchObject({ threadId: 'open-thread', issuer: null, subject: null });
    // Stored while the agent still checked tokens: not the anonymous caller's.
    await storeForeignThread({ agentId: openAgentId, caller: aliceCaller }, 'alice-earlier');
    const open = await json<{ thread_id: string }[]>(await call('/agent/threads', undefined, {}, openEngine));
    expect(open.map((thread) => thread.thread_id)).toEqual(['open-thread']);
    await expectProblem(await call('/agent/threads/alice-earlier', undefined, {}, openEngine), 404);
  });
});

describe('GET /agent/threads', () => {
  it("pages the caller's threads newest first with an opaque cursor, and nobody else's", async () => {
    const caller = { issuer: issuer.issuer, subject: 'carol' };
    const carol = await issuer.sign({ sub: 'carol' });
    for (const threadId of ['c-old', 'c-mid', 'c-new']) await say(carol, threadId, 'hi');
    // Fixed times, so "newest first" has one right answer whatever the clock did.
    for (const [threadId, at] of [
      ['c-old', '2026-01-01T00:00:00Z'],
      ['c-mid', '2026-01-02T00:00:00Z'],
      ['c-new', '2026-01-03T00:00:00Z'],
    ] as const) {
      await database.prisma.conversationThread.update({
        where: { agentId_externalKey: { agentId, externalKey: aguiThreadKey(agentId, caller, threadId) } },
        data: { updatedAt: new Date(at) },
      });
    }
    // Carol's subject under another issuer, and under another agent, are not carol here.
    await storeForeignThread(
      { agentId, caller: { issuer: 'https://tenant.example.net', subject: 'carol' } },
      'c-foreign',
    );
    await storeForeignThread({ agentId: otherAgentId, caller }, 'c-other-agent');

    const first = await call('/agent/threads?limit=2', carol);
    const page =
      await json<{ thread_id: string; message_count: number; created_at: string; updated_at: string }[]>(first);
    expect(page.map((thread) => thread.thread_id)).toEqual(['c-new', 'c-mid']);
    expect(page[0]).toMatchObject({ message_count: 2, updated_at: '2026-01-03T00:00:00.000Z' });
    expect(first.headers.get('x-total-count')).toBe('3');
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toEqual(expect.any(String));

    const second = await call(`/agent/threads?limit=2&cursor=${cursor}`, carol);
    expect((await json<{ thread_id: string }[]>(second)).map((thread) => thread.thread_id)).toEqual(['c-old']);
    expect(second.headers.get('x-next-cursor')).toBeNull();

    const bobs = await json<{ thread_id: string }[]>(await call('/agent/threads', bob));
    expect(bobs.map((thread) => thread.thread_id)).not.toEqual(expect.arrayContaining(['c-new']));
    await expectProblem(await call('/agent/threads/c-foreign', carol), 404);
    await expectProblem(await call('/agent/threads/c-other-agent', carol), 404);
  });

  it('titles each thread by its first user message, on one line and cut short, and finds threads by title', async () => {
    const dave = await issuer.sign({ sub: 'dave' });
    await say(dave, 'd-plans', '  Holiday\n  PLANS for   June  ');
    await say(dave, 'd-plans', 'and July');
    await say(dave, 'd-long', `Plans ${'x'.repeat(200)}`);
    await say(dave, 'd-percent', '100% done_ok');
    await say(dave, 'd-other', 'Something else');
    // Another subject's thread whose title matches is not dave's to find.
    await say(bob, 'b-plans', 'Bob plans too');

    const titled = await json<{ thread_id: string; title: string | null }[]>(await call('/agent/threads', dave));
    const titleOf = (threadId: string) => titled.find((thread) => thread.thread_id === threadId)?.title;
    expect(titleOf('d-plans')).toBe('Holiday PLANS for June');
    expect(titleOf('d-long')).toBe(`Plans ${'x'.repeat(74)}`);

    const search = async (query: string) => {
      const response = await call(`/agent/threads?${query}`, dave);
      const found = await json<{ thread_id: string }[]>(response);
      return { ids: found.map((thread) => thread.thread_id), total: response.headers.get('x-total-count'), response };
    };
    // Case-insensitive, anywhere in the title; newest first as without a search.
    expect(await search('q=plans')).toMatchObject({ ids: ['d-long', 'd-plans'], total: '2' });
    // Paged like the whole list, the cursor keeping to the search.
    const first = await search('q=PLANS&limit=1');
    expect(first).toMatchObject({ ids: ['d-long'], total: '2' });
    const cursor = first.response.headers.get('x-next-cursor');
    expect(await search(`q=PLANS&limit=1&cursor=${cursor}`)).toMatchObject({ ids: ['d-plans'], total: '2' });
    // LIKE's wildcards are matched as themselves.
    expect((await search(`q=${encodeURIComponent('0%')}`)).ids).toEqual(['d-percent']);
    expect((await search('q=e_o')).ids).toEqual(['d-percent']);
    expect((await search('q=_')).ids).toEqual(['d-percent']);
    expect((await search('q=nothing%20like%20it')).ids).toEqual([]);
    // A blank search is no search.
    expect((await search('q=%20%20')).total).toBe('4');
    expect((await search('q=Bob')).ids).toEqual([]);
  });

  it('refuses a search with a NUL, one too long or given twice with 400', async () => {
    for (const query of ['q=a%00b', `q=${'a'.repeat(201)}`, 'q=a&q=b']) {
      await expectProblem(await call(`/agent/threads?${query}`, alice), 400);
    }
  });

  it('refuses a bad limit or cursor with 400', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=abc', 'limit=', 'cursor=not!base64', 'cursor=bm90IGpzb24']) {
      await expectProblem(await call(`/agent/threads?${query}`, alice), 400);
    }
    const wrongShape = Buffer.from(JSON.stringify(['yesterday', 'x'])).toString('base64url');
    await expectProblem(await call(`/agent/threads?cursor=${wrongShape}`, alice), 400, /cursor/);
  });
});

describe('GET /agent/threads/{id}/runs', () => {
  it("pages the thread's runs newest first, with status, timings, error and usage", async () => {
    await say(alice, 'runs-thread', 'go');
    await insertRun('runs-thread', { id: 'r1', status: 'succeeded', createdAt: '2026-02-01T00:00:00Z' });
    await insertRun('runs-thread', { id: 'r2', status: 'failed', createdAt: '2026-02-02T00:00:00Z' });
    await insertRun('runs-thread', { id: 'r3', status: 'succeeded', createdAt: '2026-02-03T00:00:00Z' });
    // Another thread's run, of the same subject under another issuer.
    await insertRun('runs-thread', {
      id: 'r-foreign',
      status: 'succeeded',
      createdAt: '2026-02-04T00:00:00Z',
      caller: { issuer: 'https://tenant.example.net', subject: 'alice' },
    });

    const first = await call('/agent/threads/runs-thread/runs?limit=3', alice);
    const runs = await json<{ id: string }[]>(first);
    // The newest is the run `say` made, recorded by the engine itself.
    expect(runs[0]).toMatchObject({ status: 'succeeded', source: 'stream', error: null });
    expect(runs.slice(1).map((run) => run.id)).toEqual(['r3', 'r2']);
    expect(runs[2]).toEqual({
      id: 'r2',
      status: 'failed',
      source: 'stream',
      created_at: '2026-02-02T00:00:00.000Z',
      started_at: '2026-02-02T00:00:00.000Z',
      finished_at: null,
      error: 'engine lost',
      usage: { input_tokens: 3 },
    });
    const rest = await call(`/agent/threads/runs-thread/runs?cursor=${first.headers.get('x-next-cursor')}`, alice);
    expect((await json<{ id: string }[]>(rest)).map((run) => run.id)).toEqual(['r1']);
  });

  it("answers 404 for an unknown thread or someone else's, and 400 for a bad page", async () => {
    await expectProblem(await call('/agent/threads/never-seen/runs', alice), 404);
    await expectProblem(await call('/agent/threads/runs-thread/runs', bob), 404);
    await expectProblem(await call('/agent/threads/runs-thread/runs?limit=-1', alice), 400);
  });
});

describe('DELETE /agent/threads/{id}', () => {
  const checkpointThreads = async () => {
    const rows = await database.prisma.$queryRawUnsafe<{ thread_id: string }[]>(
      `SELECT thread_id FROM "${checkpointSchemaName(agentId)}".checkpoints ORDER BY thread_id`,
    );
    return rows.map((row) => row.thread_id);
  };
  const addCheckpoint = (threadId: string) =>
    database.prisma.$executeRawUnsafe(
      `INSERT INTO "${checkpointSchemaName(agentId)}".checkpoints (thread_id, checkpoint_id, checkpoint) VALUES ($1, $2, '{}')`,
      threadId,
      randomUUID(),
    );

  it('removes the thread, its messages, its runs with their events and its checkpoints; 409 while a run is going', async () => {
    await say(alice, 'doomed', 'bye');
    await say(alice, 'kept', 'stay');
    await insertRun('doomed', { id: 'd1', status: 'running', createdAt: '2026-03-01T00:00:00Z' });
    await database.prisma.$executeRaw`
      INSERT INTO run_events (agent_id, run_id, seq, data) VALUES (${agentId}::uuid, 'd1', 1, '{}')`;
    await addCheckpoint(scopedThreadId(agentId, aliceCaller, 'doomed'));
    await addCheckpoint(scopedThreadId(agentId, aliceCaller, 'kept'));

    await expectProblem(await call('/agent/threads/doomed', alice, { method: 'DELETE' }), 409, /still going/);
    expect(await threadRow(aliceCaller, 'doomed')).not.toBeNull();

    // Someone else's delete finds nothing to delete.
    await expectProblem(await call('/agent/threads/doomed', bob, { method: 'DELETE' }), 404);

    await database.prisma
      .$executeRaw`UPDATE agent_runs SET status = 'succeeded' WHERE agent_id = ${agentId}::uuid AND id = 'd1'`;
    const deleted = await call('/agent/threads/doomed', alice, { method: 'DELETE' });
    expect(deleted.status).toBe(204);

    const key = aguiThreadKey(agentId, aliceCaller, 'doomed');
    expect(await threadRow(aliceCaller, 'doomed')).toBeNull();
    expect(await database.prisma.conversationMessage.count({ where: { thread: { externalKey: key } } })).toBe(0);
    expect(await database.prisma.agentRun.count({ where: { agentId, threadKey: key } })).toBe(0);
    expect(await database.prisma.runEvent.count({ where: { agentId, runId: 'd1' } })).toBe(0);
    expect(await checkpointThreads()).toEqual([scopedThreadId(agentId, aliceCaller, 'kept')]);
    expect(await threadRow(aliceCaller, 'kept')).not.toBeNull();

    await expectProblem(await call('/agent/threads/doomed', alice, { method: 'DELETE' }), 404);
    await expectProblem(await call('/agent/threads/doomed', alice), 404);
  });
});

describe('every thread endpoint', () => {
  const endpoints = [
    ['GET', '/agent/threads'],
    ['GET', '/agent/threads/state-thread'],
    ['GET', '/agent/threads/state-thread/runs'],
    ['DELETE', '/agent/threads/state-thread'],
  ] as const;

  it('answers 401 without a token or with a bad one, and leaves the thread alone', async () => {
    const forged = await issuer.sign({ sub: 'alice', aud: 'someone-else' });
    for (const [method, path] of endpoints) {
      for (const token of [undefined, 'not-a-jwt', forged]) {
        const response = await call(path, token, { method });
        await expectProblem(response, 401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
    expect(await threadRow(aliceCaller, 'state-thread')).not.toBeNull();
  });

  it('refuses an id that is too long or carries control characters with 400', async () => {
    for (const id of ['x'.repeat(513), 'bad%01id']) {
      for (const [method, path] of endpoints.slice(1)) {
        await expectProblem(await call(path.replace('state-thread', id), alice, { method }), 400);
      }
    }
  });

  it('answers 503 saying what to set when the engine has no database', async () => {
    const fileEngine = await startFileEngine(makeLlmEngineConfig());
    try {
      for (const [method, path] of endpoints) {
        await expectProblem(await call(path, undefined, { method }, fileEngine), 503, /DATABASE_URL/);
      }
    } finally {
      await fileEngine.shutdown();
    }
  });
});
