// Background runs, cancel and the double-texting policies, on two engine replicas of one agent sharing
// one database: a background run is answered 202 and runs on a replica with a free slot; a cancel sent
// to one replica stops the run on the other; a second run on a busy thread is rejected, enqueued,
// interrupts or rolls back the first, as the request or the agent's config says; and whatever the
// race, the table never holds two running runs of one thread.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Message } from '@ag-ui/core';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { frameType, readSseFrames, type SseFrame } from '../testing/read-sse-frames.js';
import { expectRunsOneAtATime } from '../testing/run-rows.js';
import { startDatabaseEngine, startFileEngine } from '../testing/test-engine.js';

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
const SLOW_AGENT = 'slow-agent.js:createSlowAgent';
const LONG = '100000 5';

let database: TestDatabase;
let issuer: TestIssuer;
let agentId: string;
let enqueueingAgentId: string;
let first: RunningEngine;
let second: RunningEngine;
let enqueueing: RunningEngine;
let ada: string;
let bob: string;

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  enqueueingAgentId = (await makeAgent(database.prisma, workspace.id)).id;
  const row = { agentId, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig(SLOW_AGENT, row));
  // An agent whose config says enqueue.
  const enqueueingRow = { agentId: enqueueingAgentId, workspaceId: workspace.id };
  const enqueueingConfig = makeCustomEngineConfig(SLOW_AGENT, enqueueingRow);
  enqueueingConfig.agent.config = { module: SLOW_AGENT, runs: { multitaskStrategy: 'enqueue' } };
  await writeConfigRow(database.prisma, enqueueingRow, 1, enqueueingConfig);
  const env = {
    ENGINE_AGENTS_DIR: FIXTURES,
    ENGINE_AUTH: 'oidc',
    ENGINE_OIDC_ISSUER: issuer.issuer,
    ENGINE_OIDC_AUDIENCE: issuer.audience,
    // One queued run per replica at once: the bound is seen with few runs.
    ENGINE_RUN_QUEUE_CONCURRENCY: '1',
    // Leases renewed only every 200 s: a cancel has to arrive by its notification, not the renewal.
    ENGINE_RUN_LEASE_MS: '600000',
  };
  [first, second, enqueueing] = await Promise.all([
    startDatabaseEngine(database, agentId, env),
    startDatabaseEngine(database, agentId, env),
    startDatabaseEngine(database, enqueueingAgentId, env),
  ]);
  for (const engine of [first, second, enqueueing]) {
    await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  }
  ada = await issuer.sign({ sub: 'ada' });
  bob = await issuer.sign({ sub: 'bob' });
});

afterAll(async () => {
  await Promise.all([first?.shutdown(), second?.shutdown(), enqueueing?.shutdown()]);
  await issuer?.close();
  await database?.drop();
});

type Agentplane = { onDisconnect?: string; multitaskStrategy?: string };

/** A run of the slow agent: "<count> <delayMs>" deltas, on a new thread unless `threadId` is given. */
function slowRun(content: string, agentplane: Agentplane = {}, threadId = `thread-${randomUUID()}`) {
  return {
    ...makeRunAgentInput(content),
    threadId,
    runId: `run-${randomUUID()}`,
    forwardedProps: { agentplane },
  };
}

function post(engine: RunningEngine, path: string, body?: unknown, token: string | null = ada) {
  return fetch(`${engine.url}${path}`, {
    method: 'POST',
    headers: {
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const postRun = (engine: RunningEngine, body: unknown) => post(engine, '/agent/run', body);
const postBackground = (engine: RunningEngine, body: unknown, token: string | null = ada) =>
  post(engine, '/agent/runs', body, token);
const cancel = (engine: RunningEngine, runId: string, token: string | null = ada) =>
  post(engine, `/agent/runs/${encodeURIComponent(runId)}/cancel`, undefined, token);
const rejoin = (engine: RunningEngine, runId: string) =>
  fetch(`${engine.url}/agent/runs/${encodeURIComponent(runId)}/stream`, {
    headers: { Authorization: `Bearer ${ada}` },
  });

async function threadMessages(engine: RunningEngine, threadId: string): Promise<Message[]> {
  const response = await fetch(`${engine.url}/agent/threads/${encodeURIComponent(threadId)}`, {
    headers: { Authorization: `Bearer ${ada}` },
  });
  return ((await response.json()) as { messages: Message[] }).messages;
}

const runRow = (id: string, agent = agentId) =>
  database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId: agent, id } } });

async function runStatus(id: string, agent = agentId): Promise<string | undefined> {
  return (await runRow(id, agent))?.status;
}

const untilStatus = (id: string, status: string, agent = agentId) =>
  waitUntil(async () => (await runStatus(id, agent)) === status, { what: `run ${id} to be ${status}` });

const runsOneAtATime = (threadId: string, agent = agentId) => expectRunsOneAtATime(database, agent, threadId);

const types = (frames: SseFrame[]) => frames.map(frameType);
const lastFrame = (frames: SseFrame[]) => JSON.parse(frames.at(-1)?.data ?? '{}') as { type: string; code?: string };

describe('POST /agent/runs', () => {
  it('answers 202 at once, runs in the background, and is read and rejoined on either replica', async () => {
    const body = slowRun('3 0');
    const response = await postBackground(first, body);
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ run_id: body.runId, thread_id: body.threadId, status: 'pending' });
    await untilStatus(body.runId, 'succeeded');
    const record = await fetch(`${second.url}/agent/runs/${body.runId}`, {
      headers: { Authorization: `Bearer ${ada}` },
    });
    expect(await record.json()).toMatchObject({ status: 'succeeded', source: 'background' });
    const frames = await readSseFrames(await rejoin(second, body.runId));
    expect(types(frames)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    // Its thread keeps the conversation, as a streamed run's does.
    expect((await threadMessages(first, body.threadId)).map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('beyond each replica`s bound the runs wait pending, and start when a slot frees', async () => {
    const bodies = [slowRun(LONG), slowRun(LONG), slowRun(LONG)];
    for (const body of bodies) expect((await postBackground(first, body)).status).toBe(202);
    const ids = bodies.map((body) => body.runId);
    const statuses = async () =>
      (await database.prisma.agentRun.findMany({ where: { agentId, id: { in: ids } } })).map((run) => run.status);
    // Two replicas, one slot each.
    await waitUntil(async () => (await statuses()).filter((status) => status === 'running').length === 2, {
      what: 'two runs to be running',
    });
    expect((await statuses()).sort()).toEqual(['pending', 'running', 'running']);
    const [waiting] = (
      await database.prisma.agentRun.findMany({ where: { agentId, id: { in: ids }, status: 'pending' } })
    ).map((run) => run.id);
    const runningOne = ids.find((id) => id !== waiting) as string;
    expect((await cancel(second, runningOne)).status).toBe(202);
    await untilStatus(waiting as string, 'running');
    for (const id of ids) await cancel(first, id);
    for (const id of ids) await untilStatus(id, 'cancelled');
  });

  it('a run waiting for a slot when a streamed run took its thread starts once that run ends', async () => {
    // Both replicas' slots busy, so the background run waits; the streamed run then takes its thread.
    const busy = [slowRun(LONG), slowRun(LONG)];
    for (const body of busy) expect((await postBackground(first, body)).status).toBe(202);
    for (const body of busy) await untilStatus(body.runId, 'running');
    const waiting = slowRun('2 0');
    expect((await postBackground(second, waiting)).status).toBe(202);
    const streamed = slowRun(LONG, {}, waiting.threadId);
    const streamedFrames = readSseFrames(await postRun(first, streamed));
    await untilStatus(streamed.runId, 'running');
    // The freed slots find the thread taken: the waiting run is not claimed.
    for (const body of busy) await cancel(first, body.runId);
    for (const body of busy) await untilStatus(body.runId, 'cancelled');
    expect(await runStatus(waiting.runId)).toBe('pending');
    // Nothing marked the streamed run as waited on (it started after the enqueue): its end wakes the
    // queues because a run of its thread is pending, with no poll to fall back on.
    await cancel(second, streamed.runId);
    await streamedFrames;
    await untilStatus(waiting.runId, 'succeeded');
    expect((await runsOneAtATime(waiting.threadId)).map((run) => run.id)).toEqual([streamed.runId, waiting.runId]);
  });

  it('refuses a bad body (422), a missing token (401), a runId used before (409), and a run on a busy thread under reject (409)', async () => {
    expect((await postBackground(first, { threadId: 't' })).status).toBe(422);
    expect((await postBackground(first, slowRun('1 0'), null)).status).toBe(401);
    const body = slowRun(LONG);
    expect((await postBackground(first, body)).status).toBe(202);
    const taken = await postBackground(second, { ...body, threadId: `thread-${randomUUID()}` });
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as { type: string }).type).toBe('urn:agentplane:problem:run-id-taken');
    const busy = await postBackground(second, slowRun('1 0', {}, body.threadId));
    expect(busy.status).toBe(409);
    expect(busy.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await busy.json()) as { type: string }).type).toBe('urn:agentplane:problem:run-in-progress');
    await cancel(first, body.runId);
    await untilStatus(body.runId, 'cancelled');
  });

  it('is 503 without a database', async () => {
    const engine = await startFileEngine(makeCustomEngineConfig(SLOW_AGENT), { env: { ENGINE_AGENTS_DIR: FIXTURES } });
    try {
      const response = await fetch(`${engine.url}/agent/runs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(slowRun('1 0')),
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    } finally {
      await engine.shutdown();
    }
  });
});

describe('POST /agent/runs/{id}/cancel', () => {
  it('sent to one replica, stops the run streaming on the other: its stream ends with RUN_ERROR "cancelled"', async () => {
    const body = slowRun(LONG);
    const response = await postRun(first, body);
    const frames: Promise<SseFrame[]> = readSseFrames(response);
    await untilStatus(body.runId, 'running');
    const cancelled = await cancel(second, body.runId);
    expect(cancelled.status).toBe(202);
    expect(await cancelled.json()).toEqual({ run_id: body.runId, thread_id: body.threadId, status: 'running' });
    const live = await frames;
    expect(lastFrame(live)).toMatchObject({ type: 'RUN_ERROR', code: 'cancelled' });
    expect(await runRow(body.runId)).toMatchObject({ status: 'cancelled', error: 'cancelled' });
    // The stored stream ends the same way.
    expect(lastFrame(await readSseFrames(await rejoin(second, body.runId)))).toMatchObject({ code: 'cancelled' });
    // Over now: a second cancel is a conflict.
    const again = await cancel(first, body.runId);
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('cancels a waiting run at once', async () => {
    const going = slowRun(LONG);
    expect((await postBackground(first, going)).status).toBe(202);
    const waiting = slowRun('1 0', { multitaskStrategy: 'enqueue' }, going.threadId);
    expect((await postBackground(second, waiting)).status).toBe(202);
    const response = await cancel(second, waiting.runId);
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ status: 'cancelled' });
    await cancel(first, going.runId);
    await untilStatus(going.runId, 'cancelled');
    expect(await runStatus(waiting.runId)).toBe('cancelled');
  });

  it('is 404 for an unknown run and another subject`s run, 401 without a token', async () => {
    const body = slowRun(LONG);
    expect((await postBackground(first, body)).status).toBe(202);
    expect((await cancel(first, 'no-such-run')).status).toBe(404);
    expect((await cancel(first, body.runId, bob)).status).toBe(404);
    expect((await cancel(first, body.runId, null)).status).toBe(401);
    expect((await cancel(first, body.runId, 'not-a-token')).status).toBe(401);
    expect(await runStatus(body.runId)).not.toBe('cancelled');
    await cancel(first, body.runId);
    await untilStatus(body.runId, 'cancelled');
  });
});

describe('a second run on a busy thread', () => {
  it('under enqueue, two racing clients on two replicas both run after the current one, in turn', async () => {
    const going = slowRun(LONG);
    const goingFrames = readSseFrames(await postRun(first, going));
    await untilStatus(going.runId, 'running');
    const [one, two] = [
      slowRun('2 0', { multitaskStrategy: 'enqueue' }, going.threadId),
      slowRun('2 0', { multitaskStrategy: 'enqueue' }, going.threadId),
    ];
    const [oneResponse, twoResponse] = await Promise.all([postRun(first, one), postRun(second, two)]);
    expect([oneResponse.status, twoResponse.status]).toEqual([200, 200]);
    const streams = Promise.all([readSseFrames(oneResponse), readSseFrames(twoResponse)]);
    await untilStatus(one.runId, 'pending');
    await untilStatus(two.runId, 'pending');
    await cancel(second, going.runId);
    for (const frames of await streams) {
      expect(types(frames)[0]).toBe('RUN_STARTED');
      expect(lastFrame(frames).type).toBe('RUN_FINISHED');
    }
    await goingFrames;
    const runs = await runsOneAtATime(going.threadId);
    expect(runs.map((run) => run.status)).toEqual(['cancelled', 'succeeded', 'succeeded']);
    // In the order they were queued.
    const queued = await database.prisma.agentRun.findMany({
      where: { agentId, id: { in: [one.runId, two.runId] } },
      orderBy: { queuedAt: 'asc' },
    });
    expect(runs.slice(1).map((run) => run.id)).toEqual(queued.map((run) => run.id));
  });

  it('under interrupt, stops the current run (interrupted, its messages kept) and starts the new one', async () => {
    const going = slowRun(LONG);
    const goingFrames = readSseFrames(await postRun(first, going));
    await waitUntil(async () => ((await runRow(going.runId))?.lastSeq ?? 0) >= 3, { what: 'some deltas stored' });
    const next = slowRun('2 0', { multitaskStrategy: 'interrupt' }, going.threadId);
    const frames = await readSseFrames(await postRun(second, next));
    expect(lastFrame(frames).type).toBe('RUN_FINISHED');
    expect(lastFrame(await goingFrames)).toMatchObject({ type: 'RUN_ERROR', code: 'interrupted' });
    const runs = await runsOneAtATime(going.threadId);
    expect(runs.map((run) => run.status)).toEqual(['interrupted', 'succeeded']);
    const ids = (await threadMessages(first, going.threadId)).map((message) => message.id);
    expect(ids).toContain(`msg-${going.runId}`);
    expect(ids).toContain(`msg-${next.runId}`);
  });

  it('under rollback, stops the current run and discards it from the thread', async () => {
    const going = slowRun(LONG);
    const goingFrames = readSseFrames(await postRun(first, going));
    await waitUntil(async () => ((await runRow(going.runId))?.lastSeq ?? 0) >= 3, { what: 'some deltas stored' });
    const next = slowRun('2 0', { multitaskStrategy: 'rollback' }, going.threadId);
    expect(lastFrame(await readSseFrames(await postRun(second, next))).type).toBe('RUN_FINISHED');
    expect(lastFrame(await goingFrames)).toMatchObject({ type: 'RUN_ERROR', code: 'rolled_back' });
    expect(await runRow(going.runId)).toMatchObject({ status: 'cancelled', error: 'rolled back' });
    await runsOneAtATime(going.threadId);
    const messages = await threadMessages(first, going.threadId);
    expect(messages.map((message) => message.id)).toEqual([next.messages[0]?.id, `msg-${next.runId}`]);
  });

  it('under interrupt, of two racing clients the later one wins: the earlier is superseded or interrupted', async () => {
    const going = slowRun(LONG);
    expect((await postBackground(first, going)).status).toBe(202);
    await untilStatus(going.runId, 'running');
    // Long runs: whichever queued second stops the other, however far the first got.
    const racers = [
      slowRun(LONG, { multitaskStrategy: 'interrupt' }, going.threadId),
      slowRun(LONG, { multitaskStrategy: 'interrupt' }, going.threadId),
    ];
    await Promise.all([postBackground(first, racers[0]), postBackground(second, racers[1])]);
    await untilStatus(going.runId, 'interrupted');
    const statuses = async () => Promise.all(racers.map((racer) => runStatus(racer.runId)));
    await waitUntil(
      async () => {
        const [one, two] = await statuses();
        return (one === 'running' && two !== 'pending') || (two === 'running' && one !== 'pending');
      },
      { what: 'one racer to run and the other to be stopped' },
    );
    const stopped = (await statuses()).filter((status) => status !== 'running');
    expect(stopped).toHaveLength(1);
    expect(['cancelled', 'interrupted']).toContain(stopped[0]);
    // The winner is cancelled (the other one, over already, answers 409).
    for (const racer of racers) await cancel(first, racer.runId);
    await waitUntil(
      async () =>
        (await database.prisma.agentRun.count({
          where: { agentId, threadId: going.threadId, status: { in: ['pending', 'running'] } },
        })) === 0,
      { what: 'the thread to be idle' },
    );
    await runsOneAtATime(going.threadId);
  });

  it('follows the agent`s config (enqueue here), which a request overrides (reject)', async () => {
    const token = ada;
    const onAgent = (path: string, body: unknown) =>
      fetch(`${enqueueing.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const going = slowRun(LONG);
    expect((await onAgent('/agent/runs', going)).status).toBe(202);
    await untilStatus(going.runId, 'running', enqueueingAgentId);
    const refused = await onAgent('/agent/runs', slowRun('1 0', { multitaskStrategy: 'reject' }, going.threadId));
    expect(refused.status).toBe(409);
    const queued = slowRun('1 0', {}, going.threadId);
    expect((await onAgent('/agent/runs', queued)).status).toBe(202);
    expect(await runStatus(queued.runId, enqueueingAgentId)).toBe('pending');
    expect((await onAgent(`/agent/runs/${going.runId}/cancel`, undefined)).status).toBe(202);
    await untilStatus(queued.runId, 'succeeded', enqueueingAgentId);
    await runsOneAtATime(going.threadId, enqueueingAgentId);
  });

  it('refuses a multitaskStrategy that is not one of the four (422), on both run endpoints', async () => {
    for (const path of ['/agent/run', '/agent/runs']) {
      const response = await post(first, path, slowRun('1 0', { multitaskStrategy: 'queue' }));
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as { errors: { path: string }[] };
      expect(problem.errors.map((error) => error.path)).toEqual(['forwardedProps.agentplane.multitaskStrategy']);
    }
  });
});
