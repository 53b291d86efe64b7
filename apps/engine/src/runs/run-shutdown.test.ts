// A graceful stop of an engine process (SIGTERM, as in a redeploy): runs get ENGINE_SHUTDOWN_GRACE_MS to
// finish, and the ones still going after it are ended by the engine itself, `failed` ("engine stopped")
// with a RUN_ERROR on their stream and in their log, so no client waits for a lease to run out.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { type EngineProcess, startServingEngineProcess } from '../testing/engine-process.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { frameType, readSseFrames } from '../testing/read-sse-frames.js';
import { engineCredentialsFor } from '../testing/test-engine.js';

jest.setTimeout(120_000);

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));

let database: TestDatabase;
let agentId: string;
const processes: EngineProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  const row = { agentId, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig('slow-agent.js:createSlowAgent', row));
});

afterAll(async () => {
  await Promise.all(processes.map((engine) => engine.kill('SIGKILL')));
  await database?.drop();
});

const startEngine = async (graceMs: number) =>
  startServingEngineProcess(
    {
      ...(await engineCredentialsFor(database, agentId)),
      ENGINE_AGENTS_DIR: FIXTURES,
      ENGINE_SHUTDOWN_GRACE_MS: String(graceMs),
    },
    processes,
  );

/** A run of the slow agent: "<count> <delayMs>" deltas. */
const slowRun = (content: string) => ({
  ...makeRunAgentInput(content),
  threadId: `thread-${randomUUID()}`,
  runId: `run-${randomUUID()}`,
});

const post = (engine: EngineProcess, path: string, body: unknown) =>
  fetch(`${engine.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

const runRow = (id: string) => database.prisma.agentRun.findUniqueOrThrow({ where: { agentId_id: { agentId, id } } });

async function lastStoredEvent(runId: string) {
  const last = await database.prisma.runEvent.findFirstOrThrow({ where: { agentId, runId }, orderBy: { seq: 'desc' } });
  return JSON.parse(last.data) as { type: string; code?: string };
}

describe('a graceful stop', () => {
  it('ends the runs that outlive the grace period as failed, "engine stopped", with a RUN_ERROR', async () => {
    const engine = await startEngine(200);
    const background = slowRun('100000 20');
    expect((await post(engine, '/agent/runs', background)).status).toBe(202);
    const streamed = slowRun('100000 20');
    const response = await post(engine, '/agent/run', streamed);
    const frames = readSseFrames(response);
    await waitUntil(
      async () =>
        (await database.prisma.agentRun.count({
          where: { agentId, id: { in: [background.runId, streamed.runId] }, status: 'running', lastSeq: { gt: 2 } },
        })) === 2,
      { what: 'both runs to be running and logging' },
    );

    await engine.kill('SIGTERM');

    for (const runId of [background.runId, streamed.runId]) {
      expect(await runRow(runId)).toMatchObject({ status: 'failed', error: 'engine stopped' });
      expect(await lastStoredEvent(runId)).toMatchObject({ type: 'RUN_ERROR', code: 'engine_stopped' });
    }
    // The streaming client was told before its connection closed.
    const last = (await frames).at(-1);
    expect(last === undefined ? undefined : frameType(last)).toBe('RUN_ERROR');
    expect(last?.data).toContain('engine_stopped');
  });

  it('lets a run that ends within the grace period finish', async () => {
    const engine = await startEngine(60_000);
    const run = slowRun('20 25');
    expect((await post(engine, '/agent/runs', run)).status).toBe(202);
    await waitUntil(async () => (await runRow(run.runId)).status !== 'pending', { what: 'the run to start' });

    await engine.kill('SIGTERM');

    expect(await runRow(run.runId)).toMatchObject({ status: 'succeeded', error: null });
    expect(await lastStoredEvent(run.runId)).toMatchObject({ type: 'RUN_FINISHED' });
  });
});
