// Fault test, with engines as real processes sharing one database: a client follows a run through
// the second replica while the first runs it; the first is SIGKILLed mid-run. Once its lease runs out
// the second replica marks the run failed ("engine lost"), and the follower, and anyone rejoining
// later, gets RUN_ERROR as the run's last event instead of waiting forever.
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
const processes: EngineProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const engine of processes) await engine.kill('SIGKILL');
  await database?.drop();
});

const startServingEngine = (env: Record<string, string>) => startServingEngineProcess(env, processes);

describe('an engine SIGKILLed in the middle of a run', () => {
  it('leaves the run failed after its lease, and its followers get RUN_ERROR', async () => {
    const workspace = await makeWorkspace(database.prisma);
    const agent = await makeAgent(database.prisma, workspace.id);
    const row = { agentId: agent.id, workspaceId: workspace.id };
    await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig('slow-agent.js:createSlowAgent', row));
    const env = {
      ...(await engineCredentialsFor(database, agent.id)),
      ENGINE_AGENTS_DIR: FIXTURES,
      ENGINE_RUN_LEASE_MS: '1500',
    };
    const [running, following] = await Promise.all([startServingEngine(env), startServingEngine(env)]);

    // Far more deltas than the test waits for: the run is still going when its engine is killed.
    const input = { ...makeRunAgentInput('100000 5'), runId: `run-${randomUUID()}` };
    const started = await fetch(`${running.url}/agent/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...input, forwardedProps: { agentplane: { onDisconnect: 'continue' } } }),
    });
    // At least 5: one read may carry several frames (a busy machine sends them in fewer chunks).
    const seen = await readSseFrames(started, (frames) => frames.length >= 5);

    // Followed live through the other replica, from where the first client left.
    const followed = readSseFrames(
      await fetch(`${following.url}/agent/runs/${input.runId}/stream`, {
        headers: { 'Last-Event-ID': String(seen.at(-1)?.id) },
      }),
    );
    const stored = async () =>
      await database.prisma.agentRun.findUniqueOrThrow({
        where: { agentId_id: { agentId: agent.id, id: input.runId } },
      });
    await waitUntil(async () => (await stored()).lastSeq >= 50, { what: 'the run to store 50 events' });
    await running.kill('SIGKILL');

    const rest = await followed;
    const run = await stored();
    expect(run.status).toBe('failed');
    expect(run.error).toBe('engine lost');
    expect(run.errorCode).toBe('engine_lost');
    // Every event up to the kill (at least the 50 waited for), however many the first read carried.
    expect(seen.length + rest.length).toBeGreaterThanOrEqual(50);
    expect(rest.map((frame) => frame.id)).toEqual(rest.map((_, i) => `${input.runId}:${i + seen.length + 1}`));
    expect(frameType(rest.at(-1) as (typeof rest)[number])).toBe('RUN_ERROR');
    expect(JSON.parse(String(rest.at(-1)?.data))).toMatchObject({ code: 'engine_lost', message: 'engine lost' });
    expect(rest.at(-1)?.id).toBe(`${input.runId}:${run.lastSeq}`);

    // A client rejoining afterwards gets the whole stored run, ending with the same RUN_ERROR.
    const replay = await readSseFrames(await fetch(`${following.url}/agent/runs/${input.runId}/stream`));
    expect(replay.map((frame) => frame.raw)).toEqual([...seen, ...rest].map((frame) => frame.raw));
  });
});
