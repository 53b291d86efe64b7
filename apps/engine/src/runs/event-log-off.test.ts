// An engine in database mode with its event log off (ENGINE_RUN_EVENT_LOG=off): runs are still
// records (row, status, thread) without their events, and what would follow a run through its stored
// events is refused with a 409 before anything opens or is queued: rejoins, and streaming runs under
// enqueue, interrupt or rollback. Background runs and cancels need no log and still work.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Message } from '@ag-ui/core';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { captureLogs } from '../testing/captured-logs.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { frameType, readSseFrames } from '../testing/read-sse-frames.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
const SLOW_AGENT = 'slow-agent.js:createSlowAgent';

let database: TestDatabase;
let issuer: TestIssuer;
let agentId: string;
let engine: RunningEngine;
let ada: string;
let bob: string;
const logs = captureLogs();

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  const row = { agentId, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig(SLOW_AGENT, row));
  engine = await startDatabaseEngine(
    database,
    agentId,
    {
      ENGINE_AGENTS_DIR: FIXTURES,
      ENGINE_AUTH: 'oidc',
      ENGINE_OIDC_ISSUER: issuer.issuer,
      ENGINE_OIDC_AUDIENCE: issuer.audience,
      ENGINE_RUN_EVENT_LOG: 'off',
      // Leases renewed only every 200 s: a cancel has to arrive by its notification.
      ENGINE_RUN_LEASE_MS: '600000',
    },
    { logDestination: logs.destination, logLevel: 'warn' },
  );
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  ada = await issuer.sign({ sub: 'ada' });
  bob = await issuer.sign({ sub: 'bob' });
});

afterAll(async () => {
  await engine?.shutdown();
  await issuer?.close();
  await database?.drop();
});

/** A run of the slow agent: "<count> <delayMs>" deltas, on a new thread unless `threadId` is given. */
function slowRun(content: string, agentplane: Record<string, string> = {}, threadId = `thread-${randomUUID()}`) {
  return { ...makeRunAgentInput(content), threadId, runId: `run-${randomUUID()}`, forwardedProps: { agentplane } };
}

function request(method: 'GET' | 'POST', path: string, body?: unknown, token: string | null = ada) {
  return fetch(`${engine.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const rejoin = (runId: string, token: string | null = ada) =>
  request('GET', `/agent/runs/${encodeURIComponent(runId)}/stream`, undefined, token);
const readEvents = (runId: string, token: string | null = ada) =>
  request('GET', `/agent/runs/${encodeURIComponent(runId)}/events`, undefined, token);

const runRow = (id: string) => database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId, id } } });
const storedEvents = (runId: string) => database.prisma.runEvent.count({ where: { agentId, runId } });
const untilStatus = (id: string, status: string) =>
  waitUntil(async () => (await runRow(id))?.status === status, { what: `run ${id} to be ${status}` });

async function expectEventLogOff(response: Response) {
  expect(response.status).toBe(409);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = (await response.json()) as { type: string; detail: string };
  expect(problem.type).toMatch(/event-log-off$/);
  expect(problem.detail).toMatch(/ENGINE_RUN_EVENT_LOG=off/);
}

describe('a streaming run with the event log off', () => {
  it('streams in full and is stored as a record with its thread, without its events', async () => {
    const body = slowRun('3 0');
    const frames = await readSseFrames(await request('POST', '/agent/run', body));
    expect(frames.map(frameType)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(frames.map((frame) => frame.id)).toEqual(frames.map((_, i) => `${body.runId}:${i + 1}`));
    expect(await runRow(body.runId)).toMatchObject({ status: 'succeeded', lastSeq: 0 });
    expect(await storedEvents(body.runId)).toBe(0);
    const record = await request('GET', `/agent/runs/${body.runId}`);
    expect(await record.json()).toMatchObject({ id: body.runId, status: 'succeeded', source: 'stream' });
    const thread = await request('GET', `/agent/threads/${body.threadId}`);
    const { messages } = (await thread.json()) as { messages: Message[] };
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it.each(['enqueue', 'interrupt', 'rollback'])(
    'under %s is refused with a 409 before it is queued, as a stream of it could not follow it',
    async (multitaskStrategy) => {
      const body = slowRun('3 0', { multitaskStrategy });
      await expectEventLogOff(await request('POST', '/agent/run', body));
      expect(await runRow(body.runId)).toBeNull();
    },
  );

  it('under reject still answers 409 run-in-progress on a busy thread', async () => {
    const running = slowRun('100000 5');
    const live = await request('POST', '/agent/run', running);
    expect(live.status).toBe(200);
    await untilStatus(running.runId, 'running');
    const second = await request('POST', '/agent/run', slowRun('1 0', {}, running.threadId));
    expect(second.status).toBe(409);
    expect(((await second.json()) as { type: string }).type).toMatch(/run-in-progress$/);
    await live.body?.cancel();
    await untilStatus(running.runId, 'cancelled');
  });
});

describe('GET /agent/runs/{id}/stream with the event log off', () => {
  it("answers 409 event-log-off for the caller's run, another caller's run and an unknown id alike", async () => {
    const body = slowRun('2 0');
    await readSseFrames(await request('POST', '/agent/run', body));
    await expectEventLogOff(await rejoin(body.runId));
    await expectEventLogOff(await rejoin(body.runId, bob));
    await expectEventLogOff(await rejoin(`run-${randomUUID()}`));
  });

  it('and GET /agent/runs/{id}/events, which reads the same stored events, answers the same', async () => {
    const body = slowRun('2 0');
    await readSseFrames(await request('POST', '/agent/run', body));
    await expectEventLogOff(await readEvents(body.runId));
    await expectEventLogOff(await readEvents(body.runId, bob));
    expect((await readEvents(body.runId, null)).status).toBe(401);
  });

  it('still asks for a token first', async () => {
    const response = await rejoin(`run-${randomUUID()}`, null);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});

describe('background runs with the event log off', () => {
  it('run to their end, and a cancel stops a running one', async () => {
    const quick = slowRun('2 0');
    expect((await request('POST', '/agent/runs', quick)).status).toBe(202);
    await untilStatus(quick.runId, 'succeeded');
    expect(await storedEvents(quick.runId)).toBe(0);

    const long = slowRun('100000 5');
    expect((await request('POST', '/agent/runs', long)).status).toBe(202);
    await untilStatus(long.runId, 'running');
    const cancel = await request('POST', `/agent/runs/${long.runId}/cancel`);
    // A 409 here means the run ended by itself, which it never should: the row says how it ended.
    const refused = cancel.status === 202 ? undefined : await runRow(long.runId);
    const ended = refused && { status: refused.status, error: refused.error, logged: logs.lines() };
    expect({ status: cancel.status, ended }).toEqual({ status: 202, ended: undefined });
    await untilStatus(long.runId, 'cancelled');
  });

  it('refuse an invalid body with a 422 and a caller without a token with a 401', async () => {
    expect((await request('POST', '/agent/runs', { threadId: 1 })).status).toBe(422);
    expect((await request('POST', '/agent/runs', slowRun('1 0'), null)).status).toBe(401);
  });
});
