// What a run input may not carry, and what a run needs before it starts, against a database-mode engine:
// ids that break the shared id rule (NUL, lone surrogates, control characters, past the length cap),
// values PostgreSQL cannot store anywhere in the body, nesting that would exhaust the stack, inputs
// past the size cap, bad run ids in paths and bad cursors. Each is a 4xx problem before any run
// starts, never a 500, a run left `running` or a thread lost. And a run that cannot be recorded, or
// whose stored thread cannot be read, is a 503 before the stream: it never runs unrecorded; a queued
// run whose thread cannot be read ends failed with a stored RUN_ERROR, and never runs without it.
import { randomUUID } from 'node:crypto';
import type { RunAgentInput } from '@ag-ui/core';
import { AGUI_ID_MAX_LENGTH, RUN_INPUT_MAX_BYTES_DEFAULT } from '@agentplane/contracts';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { listTypes, readEventStream } from '../testing/read-event-stream.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

let database: TestDatabase;
let agentId: string;
let engine: RunningEngine;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  agentId = (await makeAgent(database.prisma, workspaceId)).id;
  await writeConfigRow(database.prisma, { agentId, workspaceId }, 1, makeLlmEngineConfig({ agentId, workspaceId }));
  engine = await startDatabaseEngine(database, agentId);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
});

afterAll(async () => {
  await engine?.shutdown();
  await database?.drop();
});

type RunPath = '/agent/run' | '/agent/runs';

/** POSTs JSON text as written, so that escapes such as \u0000 and lone surrogates arrive as sent. */
function post(path: string, body?: unknown) {
  return fetch(`${engine.url}${path}`, {
    method: 'POST',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

const runCount = () => database.prisma.agentRun.count({ where: { agentId } });
const runRow = (runId: string) =>
  database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId, id: runId } } });

async function expectProblem(response: Response, status: number): Promise<{ errors?: { path: string }[] }> {
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({
    status,
    type: expect.stringMatching(/^application\/problem\+json/),
  });
  return (await response.json()) as { errors?: { path: string }[] };
}

const input = (overrides: Partial<RunAgentInput> = {}) => makeRunAgentInput('hi', overrides);
const message = (fields: Record<string, unknown>) => [{ id: randomUUID(), role: 'user', content: 'hi', ...fields }];

// Each body beside the field its refusal names: the id rule's 422s name the id, the unstorable-input
// refusal's name the path of the value.
const REFUSED: [string, unknown, string][] = [
  ['a NUL in runId', input({ runId: 'run\u0000x' }), 'runId'],
  ['a lone surrogate in threadId', input({ threadId: '\ud800' }), 'threadId'],
  ['a control character in runId', input({ runId: 'run\nforged log line' }), 'runId'],
  ['a 100 KB runId', input({ runId: 'r'.repeat(100_000) }), 'runId'],
  ['a runId one past the cap', input({ runId: 'r'.repeat(AGUI_ID_MAX_LENGTH + 1) }), 'runId'],
  ['a NUL in parentRunId', input({ parentRunId: 'p\u0000' }), 'parentRunId'],
  [
    'a lone surrogate in a message id',
    input({ messages: [{ id: '\udfff', role: 'user', content: 'hi' }] }),
    'messages[0].id',
  ],
  ['a NUL in a message content', input({ messages: message({ content: 'hi\u0000' }) as never }), 'messages[0].content'],
  [
    'a lone surrogate in a message content',
    input({ messages: message({ content: 'x\ud83d' }) as never }),
    'messages[0].content',
  ],
  ['a NUL in a message name', input({ messages: message({ name: 'a\u0000' }) as never }), 'messages[0].name'],
  [
    'a lone surrogate in a tool',
    input({ tools: [{ name: 't', description: '\udc00', parameters: {} }] }),
    'tools[0].description',
  ],
  ['a NUL in a context value', input({ context: [{ description: 'd', value: '\u0000' }] }), 'context[0].value'],
  ['a NUL in a state key', input({ state: { 'k\u0000': 1 } }), 'state["k\\u0000"]'],
  ['a lone surrogate in a state value', input({ state: { k: ['\ud800'] } }), 'state.k[0]'],
  ['a lone surrogate in a forwardedProps key', input({ forwardedProps: { '\udbff': 1 } }), 'forwardedProps["\\udbff"]'],
  ['a NUL in a forwardedProps value', input({ forwardedProps: { a: { b: '\u0000' } } }), 'forwardedProps.a.b'],
  [
    'a __proto__ key in state',
    JSON.stringify(input()).replace('"state":{}', '"state":{"__proto__":{"x":1}}'),
    'state.__proto__',
  ],
];

describe.each<RunPath>(['/agent/run', '/agent/runs'])('POST %s refuses before any run starts', (path) => {
  it.each(REFUSED)('%s: 422 naming the field, and no run is recorded', async (_what, body, field) => {
    const before = await runCount();
    const response = await post(path, body);
    const problem = await expectProblem(response, 422);
    expect(problem.errors?.[0]?.path).toBe(field);
    expect(response.headers.get('location')).toBeNull();
    expect(await runCount()).toBe(before);
  });

  it.each(['state', 'forwardedProps'])(
    '%s nested 10,000 levels deep: 422, and the engine keeps serving',
    async (field) => {
      const deep = `${'{"n":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
      const text = JSON.stringify(input()).replace(`"${field}":{}`, `"${field}":${deep}`);
      const problem = await expectProblem(await post(path, text), 422);
      expect(problem.errors?.[0]?.path).toMatch(new RegExp(`^${field}(\\.n)+$`));
      expect((await fetch(`${engine.url}/health`)).status).toBe(200);
    },
  );

  it(`is 413 above ${RUN_INPUT_MAX_BYTES_DEFAULT} bytes of input, and no run is recorded`, async () => {
    const before = await runCount();
    const big = input({ messages: message({ content: 'x'.repeat(RUN_INPUT_MAX_BYTES_DEFAULT) }) as never });
    const problem = await expectProblem(await post(path, big), 413);
    expect(problem).toMatchObject({ detail: 'The request body is larger than 512 KiB.' });
    expect(await runCount()).toBe(before);
  });
});

describe('a run input at the limits is served', () => {
  it('runs with ids at the length cap, astral characters in them, and ends with its status stored', async () => {
    const runId = `${'r'.repeat(AGUI_ID_MAX_LENGTH - 2)}😀`;
    const response = await post('/agent/runs', input({ runId, threadId: `t-${'😀'.repeat(100)}` }));
    expect(response.status).toBe(202);
    expect(response.headers.get('location')).toBe(`/agent/runs/${encodeURIComponent(runId)}`);
    await waitUntil(async () => (await runRow(runId))?.status === 'succeeded', { what: 'the run to succeed' });
  });
});

describe('bad run ids in paths', () => {
  it.each([
    ['GET /agent/runs/{id}', '%00', 'GET', '/agent/runs/%00'],
    ['GET /agent/runs/{id}/stream', '%00', 'GET', '/agent/runs/%00/stream'],
    ['POST /agent/runs/{id}/cancel', '%00', 'POST', '/agent/runs/%00/cancel'],
    ['GET /agent/runs/{id}', 'a newline', 'GET', '/agent/runs/a%0Ab'],
    ['GET /agent/runs/{id}', 'one past the cap', 'GET', `/agent/runs/${'r'.repeat(AGUI_ID_MAX_LENGTH + 1)}`],
  ])('%s with a run id of %s answers 400 naming runId', async (_route, _what, method, path) => {
    const problem = await expectProblem(await fetch(`${engine.url}${path}`, { method }), 400);
    expect(problem.errors?.[0]?.path).toBe('runId');
  });
});

describe('bad cursors', () => {
  const cursor = (at: string, id: string) => Buffer.from(JSON.stringify([at, id])).toString('base64url');
  const CURSORS = [
    ['an id with a NUL', cursor('2026-01-01T00:00:00.000Z', 'a\u0000b')],
    ['an id with a lone surrogate', cursor('2026-01-01T00:00:00.000Z', '\ud800')],
    ['the earliest Date', cursor('-271821-04-20T00:00:00.000Z', 'a')],
    ['a date before 4713 BC', cursor('-004714-01-01T00:00:00.000Z', 'a')],
    ['the latest Date', cursor('+275760-09-13T00:00:00.000Z', 'a')],
  ];

  it.each(CURSORS)('GET /agent/threads with %s answers 400', async (_what, value) => {
    await expectProblem(await fetch(`${engine.url}/agent/threads?cursor=${value}`), 400);
  });

  it.each(CURSORS)('GET /agent/threads/{id}/runs with %s answers 400', async (_what, value) => {
    await expectProblem(await fetch(`${engine.url}/agent/threads/t/runs?cursor=${value}`), 400);
  });
});

describe('every run is recorded, or it does not run', () => {
  // A real database error on the run's row, for the runs this test dooms only.
  async function failRunInserts<T>(prefix: string, body: () => Promise<T>): Promise<T> {
    await database.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_doomed_run() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.id LIKE '${prefix}%' THEN RAISE EXCEPTION 'the test refuses this run'; END IF;
        RETURN NEW;
      END $$`);
    await database.prisma.$executeRawUnsafe(
      'CREATE TRIGGER refuse_doomed_run BEFORE INSERT ON agent_runs FOR EACH ROW EXECUTE FUNCTION refuse_doomed_run()',
    );
    try {
      return await body();
    } finally {
      await database.prisma.$executeRawUnsafe('DROP TRIGGER refuse_doomed_run ON agent_runs');
      await database.prisma.$executeRawUnsafe('DROP FUNCTION refuse_doomed_run()');
    }
  }

  it('answers 503 before the stream starts when the run row cannot be created, and runs nothing', async () => {
    const runId = `doomed-${randomUUID()}`;
    const response = await failRunInserts('doomed-', () => post('/agent/run', input({ runId })));
    const problem = await expectProblem(response, 503);
    expect(JSON.stringify(problem)).not.toMatch(/refuses this run|agent_runs|INSERT/);
    expect(await runRow(runId)).toBeNull();
  });

  // The stored thread is read under a row-level policy that this test makes fail for one thread.
  async function failThreadReads<T>(threadId: string, body: () => Promise<T>): Promise<T> {
    await database.prisma.$executeRawUnsafe(`
      CREATE FUNCTION refuse_doomed_thread(key text) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF key LIKE '%${threadId}' THEN RAISE EXCEPTION 'the test refuses this thread'; END IF;
        RETURN true;
      END $$`);
    await database.prisma.$executeRawUnsafe(
      'CREATE POLICY refuse_doomed_thread ON conversation_threads AS RESTRICTIVE FOR SELECT USING (refuse_doomed_thread(external_key))',
    );
    try {
      return await body();
    } finally {
      await database.prisma.$executeRawUnsafe('DROP POLICY refuse_doomed_thread ON conversation_threads');
      await database.prisma.$executeRawUnsafe('DROP FUNCTION refuse_doomed_thread(text)');
    }
  }

  it('answers 503 when the stored thread cannot be read, and ends the run it recorded as failed', async () => {
    const threadId = `doomed-thread-${randomUUID()}`;
    const first = await post('/agent/run', input({ threadId }));
    expect(listTypes((await readEventStream(first)).events).at(-1)).toBe('RUN_FINISHED');
    const runId = randomUUID();
    const response = await failThreadReads(threadId, () => post('/agent/run', input({ threadId, runId })));
    await expectProblem(response, 503);
    expect(await runRow(runId)).toMatchObject({ status: 'failed' });
    const thread = await fetch(`${engine.url}/agent/threads/${threadId}`);
    expect(((await thread.json()) as { messages: unknown[] }).messages).toHaveLength(2);
  });

  it('ends a queued run whose stored thread cannot be read: failed, its RUN_ERROR stored, the thread untouched', async () => {
    const threadId = `doomed-queued-${randomUUID()}`;
    const first = await post('/agent/run', input({ threadId }));
    expect(listTypes((await readEventStream(first)).events).at(-1)).toBe('RUN_FINISHED');
    const runId = randomUUID();
    await failThreadReads(threadId, async () => {
      expect((await post('/agent/runs', input({ threadId, runId }))).status).toBe(202);
      await waitUntil(async () => ['succeeded', 'failed'].includes(String((await runRow(runId))?.status)), {
        what: 'the queued run to end',
      });
    });
    expect(await runRow(runId)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/conversation thread/),
    });
    const rejoined = await fetch(`${engine.url}/agent/runs/${runId}/stream`);
    expect((await readEventStream(rejoined)).events).toEqual([
      { type: 'RUN_ERROR', code: 'thread_unavailable', message: expect.stringMatching(/conversation thread/) },
    ]);
    const thread = await fetch(`${engine.url}/agent/threads/${threadId}`);
    expect(((await thread.json()) as { messages: unknown[] }).messages).toHaveLength(2);
  });
});
