// Cancel and the thread's queue with engines as real processes sharing one database: a cancel sent to
// one process stops the run streaming from the other; two clients enqueueing through the two processes
// run one after the other; and a run left waiting behind a run whose engine was SIGKILLed is started
// by the surviving engine once the lost run's lease runs out.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { type EngineProcess, startServingEngineProcess } from '../testing/engine-process.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { readSseFrames, type SseFrame } from '../testing/read-sse-frames.js';
import { expectRunsOneAtATime } from '../testing/run-rows.js';
import { engineCredentialsFor } from '../testing/test-engine.js';

jest.setTimeout(120_000);

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));

let database: TestDatabase;
let agentId: string;
let first: EngineProcess;
let second: EngineProcess;
const processes: EngineProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  const row = { agentId, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig('slow-agent.js:createSlowAgent', row));
  const env = {
    ...(await engineCredentialsFor(database, agentId)),
    ENGINE_AGENTS_DIR: FIXTURES,
    ENGINE_RUN_LEASE_MS: '1500',
  };
  [first, second] = await Promise.all([
    startServingEngineProcess(env, processes),
    startServingEngineProcess(env, processes),
  ]);
});

afterAll(async () => {
  for (const engine of processes) await engine.kill('SIGKILL');
  await database?.drop();
});

function slowRun(content: string, agentplane: Record<string, string> = {}, threadId = `thread-${randomUUID()}`) {
  return { ...makeRunAgentInput(content), threadId, runId: `run-${randomUUID()}`, forwardedProps: { agentplane } };
}

const post = (engine: EngineProcess, path: string, body?: unknown) =>
  fetch(`${engine.url}${path}`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
  });

const runStatus = async (id: string) =>
  (await database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId, id } } }))?.status;
const untilStatus = (id: string, status: string) =>
  waitUntil(async () => (await runStatus(id)) === status, { what: `run ${id} to be ${status}` });
const lastEvent = (frames: SseFrame[]) => JSON.parse(frames.at(-1)?.data ?? '{}') as { type: string; code?: string };

describe('two engine processes', () => {
  it('a cancel sent to the second stops the run streaming from the first, whose stream ends with RUN_ERROR', async () => {
    const body = slowRun('100000 5');
    const frames = readSseFrames(await post(first, '/agent/run', body));
    await untilStatus(body.runId, 'running');
    expect((await post(second, `/agent/runs/${body.runId}/cancel`)).status).toBe(202);
    expect(lastEvent(await frames)).toMatchObject({ type: 'RUN_ERROR', code: 'cancelled' });
    expect(await runStatus(body.runId)).toBe('cancelled');
  });

  it('two clients enqueueing through the two processes run after the current run, one at a time', async () => {
    const going = slowRun('100000 5');
    const goingFrames = readSseFrames(await post(first, '/agent/run', going));
    await untilStatus(going.runId, 'running');
    const racers = [0, 1].map(() => slowRun('3 0', { multitaskStrategy: 'enqueue' }, going.threadId));
    const responses = await Promise.all([post(first, '/agent/run', racers[0]), post(second, '/agent/run', racers[1])]);
    const streams = Promise.all(responses.map((response) => readSseFrames(response)));
    expect((await post(second, `/agent/runs/${going.runId}/cancel`)).status).toBe(202);
    for (const frames of await streams) expect(lastEvent(frames).type).toBe('RUN_FINISHED');
    await goingFrames;
    const runs = await expectRunsOneAtATime(database, agentId, going.threadId);
    expect(runs.map((run) => run.status)).toEqual(['cancelled', 'succeeded', 'succeeded']);
  });

  it('a run waiting behind a run whose engine was SIGKILLed is started by the other engine', async () => {
    const going = slowRun('100000 5', { onDisconnect: 'continue' });
    const started = await post(first, '/agent/run', going);
    await readSseFrames(started, (frames) => frames.length >= 3);
    const waiting = slowRun('2 0', { multitaskStrategy: 'enqueue' }, going.threadId);
    expect((await post(first, '/agent/runs', waiting)).status).toBe(202);
    expect(await runStatus(waiting.runId)).toBe('pending');
    await first.kill('SIGKILL');
    await untilStatus(waiting.runId, 'succeeded');
    expect(await runStatus(going.runId)).toBe('failed');
    await expectRunsOneAtATime(database, agentId, going.threadId);
  });
});
