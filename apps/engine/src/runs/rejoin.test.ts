// Runs as records and their rejoinable streams, on two engine replicas of one agent sharing one
// database: a stream cut in the middle is rejoined on the other replica with Last-Event-ID and gives
// exactly the rest, byte for byte; runs are scoped to their caller; a second run on a running thread,
// or a reused runId, is a 409; a client leaving cancels the run unless it asked the run to continue.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { frameType, readSseFrames, type SseFrame } from '../testing/read-sse-frames.js';
import { startDatabaseEngine, startFileEngine } from '../testing/test-engine.js';

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));
const SLOW_AGENT = 'slow-agent.js:createSlowAgent';

let database: TestDatabase;
let issuer: TestIssuer;
let agentId: string;
let first: RunningEngine;
let second: RunningEngine;
let ada: string;

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  agentId = agent.id;
  const row = { agentId, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig(SLOW_AGENT, row));
  const env = {
    ENGINE_AGENTS_DIR: FIXTURES,
    ENGINE_AUTH: 'oidc',
    ENGINE_OIDC_ISSUER: issuer.issuer,
    ENGINE_OIDC_AUDIENCE: issuer.audience,
  };
  [first, second] = await Promise.all([
    startDatabaseEngine(database, agentId, env),
    startDatabaseEngine(database, agentId, env),
  ]);
  for (const engine of [first, second]) {
    await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  }
  ada = await issuer.sign({ sub: 'ada' });
});

afterAll(async () => {
  await Promise.all([first?.shutdown(), second?.shutdown()]);
  await issuer?.close();
  await database?.drop();
});

type RunBody = ReturnType<typeof makeRunAgentInput> & { forwardedProps?: unknown };

/** A run of the slow agent: `count` deltas, `delayMs` apart. */
function slowRun(count: number, delayMs: number, onDisconnect?: string): RunBody {
  return {
    ...makeRunAgentInput(`${count} ${delayMs}`),
    threadId: `thread-${randomUUID()}`,
    runId: `run-${randomUUID()}`,
    ...(onDisconnect === undefined ? {} : { forwardedProps: { agentplane: { onDisconnect } } }),
  };
}

function postRun(engine: RunningEngine, body: unknown, token = ada) {
  return fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
}

/** `token` null: no Authorization header. */
function rejoin(engine: RunningEngine, runId: string, lastEventId?: string, token: string | null = ada) {
  return fetch(`${engine.url}/agent/runs/${encodeURIComponent(runId)}/stream`, {
    headers: {
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }),
    },
  });
}

function getRun(engine: RunningEngine, runId: string, token: string | null = ada) {
  return fetch(`${engine.url}/agent/runs/${encodeURIComponent(runId)}`, {
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });
}

const runRow = (id: string) => database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId, id } } });

async function runStatus(id: string): Promise<string | undefined> {
  return (await runRow(id))?.status;
}

describe('a stream cut in the middle, with onDisconnect "continue"', () => {
  it('is rejoined on another replica with Last-Event-ID: exactly the remaining events, same ids and bytes', async () => {
    const body = slowRun(80, 5, 'continue');
    const response = await postRun(first, body);
    expect(response.status).toBe(200);
    const cut = await readSseFrames(response, (frames) => frames.length >= 10);
    // One read may carry several frames, so the cut falls at the tenth frame or a little after it.
    expect(cut.map((frame) => frame.id)).toEqual(cut.map((_, i) => `${body.runId}:${i + 1}`));

    const rest = await readSseFrames(await rejoin(second, body.runId, cut.at(-1)?.id));
    expect(await runStatus(body.runId)).toBe('succeeded');
    const full = await readSseFrames(await rejoin(first, body.runId));

    // 80 deltas between RUN_STARTED, TEXT_MESSAGE_START and TEXT_MESSAGE_END, RUN_FINISHED.
    expect(full).toHaveLength(84);
    expect(full.map((frame) => frame.id)).toEqual(full.map((_, i) => `${body.runId}:${i + 1}`));
    expect(frameType(full.at(-1) as SseFrame)).toBe('RUN_FINISHED');
    const joined = [...cut, ...rest];
    expect(joined).toHaveLength(full.length);
    joined.forEach((frame, index) => {
      expect(frame.raw).toBe(full[index]?.raw);
    });
  });

  it('serves the record of the run, and the whole stream to a client that has no Last-Event-ID', async () => {
    const body = slowRun(3, 0, 'continue');
    const live = await readSseFrames(await postRun(first, body));
    const record = await getRun(second, body.runId);
    expect(record.status).toBe(200);
    expect(await record.json()).toMatchObject({
      id: body.runId,
      thread_id: body.threadId,
      status: 'succeeded',
      source: 'stream',
      error: null,
      guardrail_actions: [],
    });
    expect((await readSseFrames(await rejoin(second, body.runId))).map((frame) => frame.raw)).toEqual(
      live.map((frame) => frame.raw),
    );
  });
});

describe('the disconnect policy', () => {
  it('cancels the run when its client leaves, by default, and its stored stream ends with RUN_ERROR', async () => {
    const body = slowRun(100_000, 5);
    const seen = await readSseFrames(await postRun(first, body), (frames) => frames.length >= 3);
    await waitUntil(async () => (await runStatus(body.runId)) === 'cancelled', { what: 'the run to be cancelled' });
    // A rejoin on the other replica reads the stored events to their end and closes.
    const stored = await readSseFrames(await rejoin(second, body.runId));
    expect(stored.slice(0, seen.length).map((frame) => frame.raw)).toEqual(seen.map((frame) => frame.raw));
    expect(stored.filter((frame) => ['RUN_FINISHED', 'RUN_ERROR'].includes(frameType(frame)))).toHaveLength(1);
    expect(JSON.parse(stored.at(-1)?.data ?? '{}')).toEqual({
      type: 'RUN_ERROR',
      message: 'The run was cancelled.',
      code: 'cancelled',
    });
  });

  it('refuses an onDisconnect other than "cancel" or "continue" (422)', async () => {
    const response = await postRun(first, slowRun(1, 0, 'later'));
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await response.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((error) => error.path)).toEqual(['forwardedProps.agentplane.onDisconnect']);
  });
});

describe('conflicts, before the stream starts', () => {
  it('answer a second run on a thread whose run is going, on either replica, with 409 run-in-progress', async () => {
    const going = slowRun(100_000, 5);
    // Its stream stays unread and open until the 409 is in.
    const response = await postRun(first, going);
    await waitUntil(async () => (await runStatus(going.runId)) === 'running', { what: 'the run to be running' });
    const again = await postRun(second, { ...slowRun(1, 0), threadId: going.threadId });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await again.json()) as { type: string }).type).toBe('urn:agentplane:problem:run-in-progress');
    await response.body?.cancel();
    await waitUntil(async () => (await runStatus(going.runId)) === 'cancelled', { what: 'the run to be cancelled' });
    // Once it is over the thread takes the next run.
    expect((await readSseFrames(await postRun(second, { ...slowRun(1, 0), threadId: going.threadId }))).length).toBe(5);
  });

  it('answer a runId used before with 409 run-id-taken', async () => {
    const body = slowRun(1, 0);
    await readSseFrames(await postRun(first, body));
    const again = await postRun(second, { ...body, threadId: `thread-${randomUUID()}` });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { type: string }).type).toBe('urn:agentplane:problem:run-id-taken');
  });
});

describe('whose runs', () => {
  let runId: string;

  beforeAll(async () => {
    const body = slowRun(2, 0);
    runId = body.runId;
    await readSseFrames(await postRun(first, body));
  });

  it('another subject gets 404 for the run and its stream', async () => {
    const bob = await issuer.sign({ sub: 'bob' });
    for (const response of [await getRun(second, runId, bob), await rejoin(second, runId, undefined, bob)]) {
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('the same subject from another issuer gets 404', async () => {
    const other = `run-${randomUUID()}`;
    await database.prisma.agentRun.create({
      data: {
        agentId,
        id: other,
        threadId: 't',
        threadKey: 't',
        issuer: 'https://other.example.com',
        subject: 'ada',
        source: 'stream',
        // What fired in someone else's run is theirs too.
        guardrailActions: [
          {
            guardrail_id: randomUUID(),
            guardrail: 'g',
            rule: 'r',
            kind: 'pii',
            position: 'input',
            action: 'redact',
            found: 'email',
            at: new Date().toISOString(),
          },
        ],
      },
    });
    expect((await getRun(first, other)).status).toBe(404);
    expect((await rejoin(first, other)).status).toBe(404);
  });

  it('an unknown run is 404, a missing or bad token 401', async () => {
    expect((await getRun(first, 'no-such-run')).status).toBe(404);
    expect((await rejoin(first, 'no-such-run')).status).toBe(404);
    expect((await getRun(first, runId, null)).status).toBe(401);
    expect((await rejoin(first, runId, undefined, null)).status).toBe(401);
    expect((await getRun(first, runId, 'not-a-token')).status).toBe(401);
  });

  it('a Last-Event-ID that is not an id of this run is 400', async () => {
    for (const lastEventId of ['other-run:1', 'garbage', `${runId}:x`]) {
      const response = await rejoin(first, runId, lastEventId);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('without a database', () => {
  it('numbers the events in their SSE ids all the same, and has no run records', async () => {
    const engine = await startFileEngine(makeCustomEngineConfig(SLOW_AGENT), { env: { ENGINE_AGENTS_DIR: FIXTURES } });
    try {
      const body = slowRun(2, 0);
      const response = await fetch(`${engine.url}/agent/run`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const frames = await readSseFrames(response);
      expect(frames.map((frame) => frame.id)).toEqual([1, 2, 3, 4, 5, 6].map((seq) => `${body.runId}:${seq}`));
      expect((await fetch(`${engine.url}/agent/runs/${body.runId}`)).status).toBe(404);
    } finally {
      await engine.shutdown();
    }
  });
});
