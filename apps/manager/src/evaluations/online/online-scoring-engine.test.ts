// Online scoring of a run a real engine ran: the engine's built dist/server.js (`pnpm --filter
// @agentplane/engine build` first), in database mode with the agent's own role, claims a scheduled run
// and ends it with the mock model's reply; the trigger on agent_runs, fired by the engine role's own
// update, queues it; and the manager's worker grades the reply the engine streamed.
import { createServer, type Server } from 'node:http';
import { createLogger } from '@agentplane/server-kit';
import { listenOnLoopback, type ServiceProcess, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { runSchedulerPass } from '../../schedules/scheduler.js';
import { ENGINE_WAIT, issueEngineCredentials, startAgentEngine } from '../../testing/agent-engine-process.js';
import {
  type ManagerTestContext,
  makePlatformOperator,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../../testing/manager-test-app.js';
import { createAgentThroughApi } from '../../testing/resource-fixtures.js';
import type { OnlineScoringWorker } from './online-scoring-worker.js';
import { startOnlineScoring } from './start-online-scoring.js';

const logger = createLogger({ name: 'test', level: 'silent' });

let ctx: ManagerTestContext;
let server: Server;
let issuer: string;
let owner: SignedInUser;
let agentId: string;
let engine: ServiceProcess | undefined;
let worker: OnlineScoringWorker | undefined;

beforeAll(async () => {
  server = createServer((req, res) => ctx.app(req, res));
  issuer = (await listenOnLoopback(server)).origin;
  ctx = await startManagerTestApp({ ISSUER_URL: issuer, ONLINE_SCORING_POLL_MS: '20' });
  owner = await signUpUser(ctx.app);
  await makePlatformOperator(ctx, owner);
  agentId = (await createAgentThroughApi(owner)).id;
  engine = await startAgentEngine(await issueEngineCredentials(owner, agentId), issuer);
  worker = await startOnlineScoring({ db: ctx.database.prisma, config: ctx.config, logger });
});
afterAll(async () => {
  await worker?.stop();
  await engine?.kill('SIGTERM');
  if (server) await new Promise((resolve) => server.close(resolve));
  await ctx?.close();
});

it('grades the reply a real engine gave, once, and lists the scores with the run', async () => {
  const configured = await owner.agent.put(`/api/v1/agents/${agentId}/online-scoring`).send({
    enabled: true,
    sample_rate: 1,
    scorers: [
      { name: 'echoes', kind: 'contains', texts: ['You said: Summarise the night'] },
      { name: 'quick', kind: 'latency', max: 600_000 },
      { name: 'exact', kind: 'exact_match' },
    ],
  });
  expect(configured.status).toBe(200);
  const created = await owner.agent.post(`/api/v1/agents/${agentId}/schedules`).send({
    name: 'Digest',
    cron: '0 8 * * *',
    timezone: 'UTC',
    message: 'Summarise the night',
  });
  expect(created.status).toBe(201);
  const [tick] = created.body.next_fire_times as string[];
  const [outcome] = await runSchedulerPass({
    issuer,
    maxConsecutiveFailures: 3,
    firesKept: 5,
    db: ctx.database.prisma,
    logger,
    now: () => new Date(tick as string),
  });
  if (outcome?.kind !== 'queued') throw new Error(`expected a queued run, got ${JSON.stringify(outcome)}`);

  const scores = () =>
    ctx.database.prisma.runScore.findMany({ where: { agentId, runId: outcome.runId }, orderBy: { scorerName: 'asc' } });
  await waitUntil(async () => (await scores()).length === 3, {
    what: `the engine's run ${outcome.runId} to end and be scored (${engine?.stderr()})`,
    ...ENGINE_WAIT,
  });
  expect((await scores()).map(({ scorerName, score }) => [scorerName, score])).toEqual([
    ['echoes', 1],
    // No dataset item: nothing to compare with, so no score (never a 0).
    ['exact', null],
    ['quick', 1],
  ]);
  const listed = await owner.agent.get(`/api/v1/agents/${agentId}/runs`);
  const run = (listed.body as { id: string; source: string; scores: { name: string }[] }[]).find(
    (candidate) => candidate.id === outcome.runId,
  );
  expect(run?.source).toBe('schedule');
  expect(run?.scores.map((score) => score.name)).toEqual(['echoes', 'exact', 'quick']);
  expect(await ctx.database.prisma.onlineScoringQueue.count({ where: { agentId } })).toBe(0);
});
