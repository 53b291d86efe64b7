// Experiments end to end: the manager's worker queues pinned runs and a real engine process (the
// engine's built dist/server.js: `pnpm --filter @agentplane/engine build` first), in database mode with
// the agent's own credentials, runs each with its version's config and the deterministic mock model,
// which echoes the last user message ("You said: …") and counts words as tokens. Two versions differ in
// their instructions, so their replies are the same and their input tokens are not; the scores of
// every item and version are then known exactly. A worker stopped, or an engine killed, mid-experiment
// leaves a successor to finish it, with one run per (item, version, repeat) and none run twice.
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type TEngineCredentials, type TExperimentResult, ZExperimentResult } from '@agentplane/contracts';
import { listenOnLoopback, type ServiceProcess, startServiceProcess, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  type ManagerTestContext,
  makePlatformOperator,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { createDataset, createVersionedAgent, launch, mockReply, workerDependencies } from './experiment-test-kit.js';
import { createExperimentWorker, type ExperimentWorker } from './experiment-worker.js';

jest.setTimeout(240_000);

// Run, not imported: no app imports another.
const ENGINE_ENTRY = fileURLToPath(new URL('../../../engine/dist/server.js', import.meta.url));
// A cold engine process loads its config, its model and its LISTEN connection first.
const WAIT = { timeoutMs: 120_000, intervalMs: 50 };
// Thirty words of instructions: version 2's runs read them as input tokens, version 1's have none.
const LONG_INSTRUCTIONS = Array.from({ length: 30 }, (_, i) => `rule${i}`).join(' ');

let ctx: ManagerTestContext;
let server: Server;
let issuer: string;
let owner: SignedInUser;
let agentId: string;
let credentials: TEngineCredentials;
const engines: ServiceProcess[] = [];
const workers: ExperimentWorker[] = [];

async function startEngine(): Promise<ServiceProcess> {
  const engine = await startServiceProcess(ENGINE_ENTRY, {
    PATH: process.env.PATH ?? '',
    LOG_LEVEL: 'error',
    HOST: '127.0.0.1',
    PORT: '0',
    AGENT_ID: credentials.agent_id,
    DATABASE_URL: credentials.database_url,
    AGENT_KEY: credentials.agent_key,
    ENGINE_MANAGER_ISSUER: issuer,
    // A killed engine's runs are found lost this soon by the next one.
    ENGINE_RUN_LEASE_MS: '1500',
  });
  engines.push(engine);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, {
    what: 'the engine to serve its config',
    ...WAIT,
  });
  return engine;
}

function startWorker(): ExperimentWorker {
  const worker = createExperimentWorker(workerDependencies(ctx, { pollMs: 50 }));
  workers.push(worker);
  worker.start(issuer);
  return worker;
}

beforeAll(async () => {
  server = createServer((req, res) => ctx.app(req, res));
  issuer = (await listenOnLoopback(server)).origin;
  ctx = await startManagerTestApp({ ISSUER_URL: issuer });
  owner = await signUpUser(ctx.app);
  await makePlatformOperator(ctx, owner);
  agentId = await createVersionedAgent(owner, [undefined, LONG_INSTRUCTIONS]);
  const issued = await owner.agent.post(`/api/v1/agents/${agentId}/engine-credentials`);
  expect(issued.status).toBe(201);
  credentials = issued.body as TEngineCredentials;
});
afterAll(async () => {
  for (const worker of workers) await worker.stop();
  for (const engine of engines) await engine.kill('SIGKILL');
  if (server) await new Promise((resolve) => server.close(resolve));
  await ctx?.close();
});

const question = (i: number) => (i % 3 === 0 ? `apple ${i}` : `pear ${i}`);
// Every fourth item expects a reply the echo never gives.
const expectedReply = (i: number) => (i % 4 === 0 ? 'nope' : mockReply(question(i)));

const SCORERS = [
  { name: 'exact', kind: 'exact_match' },
  { name: 'apple', kind: 'contains', texts: ['apple'], mode: 'any' },
  // Version 1: 2 input + 4 output tokens; version 2: 30 more input tokens.
  { name: 'cheap', kind: 'tokens', max: 20 },
];

async function readResults(experimentId: string): Promise<TExperimentResult[]> {
  const response = await owner.agent.get(`/api/v1/agents/${agentId}/experiments/${experimentId}/results?limit=1000`);
  expect(response.status).toBe(200);
  return z.array(ZExperimentResult).parse(response.body);
}

async function waitForStatus(experimentId: string, status: string): Promise<void> {
  await waitUntil(
    async () => {
      const row = await ctx.database.prisma.experiment.findUniqueOrThrow({ where: { id: experimentId } });
      if (row.status === 'failed') throw new Error(`the experiment failed: ${row.statusReason}`);
      return row.status === status;
    },
    { what: `the experiment to be ${status}; engine: ${engines.at(-1)?.stderr()}`, ...WAIT },
  );
}

async function finalCount(experimentId: string): Promise<number> {
  return ctx.database.prisma.experimentResult.count({
    where: { experimentId, state: { in: ['scored', 'failed', 'cancelled'] } },
  });
}

/** Every (item, version, repeat) has one run, of its own id, and one final result; none ran twice. */
async function expectEachRunOnce(experimentId: string, runCount: number): Promise<TExperimentResult[]> {
  const results = await readResults(experimentId);
  expect(results).toHaveLength(runCount);
  const runs = await ctx.database.prisma.agentRun.findMany({
    where: { agentId, subject: `experiment:${experimentId}` },
  });
  expect(runs).toHaveLength(runCount);
  expect(new Set(runs.map((run) => run.id))).toEqual(new Set(results.map((result) => result.run_id)));
  for (const result of results) {
    expect(result.run_id).toBe(`experiment:${experimentId}:${result.item_id}:${result.agent_version}:${result.repeat}`);
    expect(['scored', 'failed']).toContain(result.state);
  }
  for (const run of runs) {
    expect(Number(run.agentVersion)).toBe(Number(run.pinnedVersion));
    // One model call per run that answered: the mock answers in one.
    if (run.status === 'succeeded') expect(run.usage).toMatchObject({ model_calls: 1 });
  }
  return results;
}

describe('an experiment on a real engine with the mock model', () => {
  let engine: ServiceProcess;
  beforeAll(async () => {
    engine = await startEngine();
  });

  it('gives the exact scores expected for every item and version', async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ question: question(i), reply: expectedReply(i) }));
    const dataset = await createDataset(owner, items);
    const worker = startWorker();
    const experiment = await launch(owner, agentId, {
      dataset: dataset.id,
      agent_versions: [1, 2],
      scorers: SCORERS,
      concurrency: 4,
    });
    await waitForStatus(experiment.id, 'completed');
    await worker.stop();

    const results = await expectEachRunOnce(experiment.id, 40);
    const observed = results.map((result) => ({
      position: result.position,
      version: result.agent_version,
      state: result.state,
      reply: result.reply,
      scores: result.scores?.map((score) => score.score),
    }));
    const expected = items.flatMap((item, i) =>
      [1, 2].map((version) => ({
        position: i,
        version,
        state: 'scored',
        reply: mockReply(item.question),
        scores: [i % 4 === 0 ? 0 : 1, i % 3 === 0 ? 1 : 0, version === 1 ? 1 : 0],
      })),
    );
    expect(observed).toEqual(expected);
    const [one, two] = results;
    expect(one?.tokens).toEqual({ input: 2, output: 4, total: 6 });
    expect(two?.tokens).toEqual({ input: 32, output: 4, total: 36 });

    const detail = (await owner.agent.get(`/api/v1/agents/${agentId}/experiments/${experiment.id}`)).body;
    expect(detail.aggregates.map((a: { scorers: { mean: number }[] }) => a.scorers.map((s) => s.mean))).toEqual([
      [15 / 20, 7 / 20, 1],
      [15 / 20, 7 / 20, 0],
    ]);
    const comparison = await owner.agent.get(
      `/api/v1/agents/${agentId}/experiments/${experiment.id}/comparison?base=1&candidate=2`,
    );
    expect(comparison.body.counts).toEqual({ items: 20, improved: 0, regressed: 20, unchanged: 0, reply_changed: 0 });
    // The engine's own record: the runs are the experiment's, in threads of their own.
    const runs = await ctx.database.prisma.agentRun.findMany({ where: { subject: `experiment:${experiment.id}` } });
    expect(runs.every((run) => run.source === 'experiment' && run.threadId === run.id)).toBe(true);
  });

  it('finishes after its worker is stopped and another starts, running each item once', async () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ question: question(i), reply: expectedReply(i) }));
    const dataset = await createDataset(owner, items);
    const first = startWorker();
    const experiment = await launch(owner, agentId, {
      dataset: dataset.id,
      agent_versions: [1, 2],
      scorers: SCORERS,
      repeats: 2,
      concurrency: 2,
    });
    await waitUntil(async () => (await finalCount(experiment.id)) >= 4, { what: 'four runs recorded', ...WAIT });
    await first.stop();
    expect(
      await ctx.database.prisma.experimentResult.count({ where: { experimentId: experiment.id, state: 'pending' } }),
    ).toBeGreaterThan(0);

    startWorker();
    await waitForStatus(experiment.id, 'completed');
    const results = await expectEachRunOnce(experiment.id, 40);
    expect(
      results.every(
        (result) => result.state === 'scored' && result.reply === mockReply(items[result.position]?.question ?? ''),
      ),
    ).toBe(true);
  });

  it('finishes after its engine is killed and another starts: lost runs are failures, none run twice', async () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ question: question(i), reply: expectedReply(i) }));
    const dataset = await createDataset(owner, items);
    startWorker();
    const experiment = await launch(owner, agentId, {
      dataset: dataset.id,
      agent_versions: [1, 2],
      scorers: SCORERS,
      repeats: 2,
      concurrency: 2,
    });
    await waitUntil(async () => (await finalCount(experiment.id)) >= 4, { what: 'four runs recorded', ...WAIT });
    await engine.kill('SIGKILL');
    engine = await startEngine();
    await waitForStatus(experiment.id, 'completed');
    const results = await expectEachRunOnce(experiment.id, 40);
    for (const result of results) {
      if (result.state === 'failed') expect(result.error_code).toBe('engine_lost');
      else expect(result.reply).toBe(mockReply(items[result.position]?.question ?? ''));
    }
  });
});
