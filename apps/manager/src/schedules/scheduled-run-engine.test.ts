// A scheduled run end to end: the manager's scheduler fires ticks on the test's clock, and a real engine
// process (the engine's built dist/server.js: `pnpm --filter @agentplane/engine build` first), in
// database mode with the agent's own credentials and trusting the manager's tokens as `pnpm start`
// sets it up, claims each run and finishes it. The owner then reads the replies in the schedule's
// thread through the engine, with a token the manager minted for them, as the console's playground does.
import { createServer, type Server } from 'node:http';
import { type TSchedule, ZSchedule } from '@agentplane/contracts';
import { createLogger } from '@agentplane/server-kit';
import { listenOnLoopback, type ServiceProcess, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ENGINE_WAIT, issueEngineCredentials, startAgentEngine } from '../testing/agent-engine-process.js';
import {
  type ManagerTestContext,
  makePlatformOperator,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { createAgentThroughApi } from '../testing/resource-fixtures.js';
import { runSchedulerPass } from './scheduler.js';

const logger = createLogger({ name: 'test', level: 'silent' });

let ctx: ManagerTestContext;
let server: Server;
let issuer: string;
let owner: SignedInUser;
let agentId: string;
let engine: ServiceProcess | undefined;

beforeAll(async () => {
  server = createServer((req, res) => ctx.app(req, res));
  issuer = (await listenOnLoopback(server)).origin;
  ctx = await startManagerTestApp({ ISSUER_URL: issuer });
  owner = await signUpUser(ctx.app);
  // Engine credentials are a platform operator's to issue.
  await makePlatformOperator(ctx, owner);
  agentId = (await createAgentThroughApi(owner)).id;
  engine = await startAgentEngine(await issueEngineCredentials(owner, agentId), issuer);
});
afterAll(async () => {
  await engine?.kill('SIGTERM');
  if (server) await new Promise((resolve) => server.close(resolve));
  await ctx?.close();
});

function passAt(instant: string) {
  return runSchedulerPass({
    issuer,
    maxConsecutiveFailures: 3,
    firesKept: 5,
    db: ctx.database.prisma,
    logger,
    now: () => new Date(instant),
  });
}

async function fireAndAwaitEnd(instant: string): Promise<string> {
  const [outcome, ...more] = await passAt(instant);
  expect(more).toEqual([]);
  if (outcome?.kind !== 'queued') throw new Error(`expected a queued run, got ${JSON.stringify(outcome)}`);
  expect(outcome.tick.toISOString()).toBe(instant);
  await waitUntil(
    async () => {
      const run = await ctx.database.prisma.agentRun.findUnique({
        where: { agentId_id: { agentId, id: outcome.runId } },
      });
      if (run?.status === 'failed') throw new Error(`the scheduled run failed: ${run.error}; ${engine?.stderr()}`);
      return run?.status === 'succeeded';
    },
    { what: `the engine to finish the scheduled run ${outcome.runId}`, ...ENGINE_WAIT },
  );
  return outcome.runId;
}

/** GET on the engine as the owner, with a token of the manager's as the playground gets one. */
async function readAsOwner(path: string): Promise<unknown> {
  const minted = await owner.agent.post(`/api/v1/agents/${agentId}/token`);
  expect(minted.status).toBe(201);
  const response = await fetch(`${engine?.url}${path}`, {
    headers: { authorization: `Bearer ${(minted.body as { access_token: string }).access_token}` },
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe('a scheduled run', () => {
  it('is claimed and finished by a real engine, its replies in a thread the owner opens', async () => {
    const created = await owner.agent.post(`/api/v1/agents/${agentId}/schedules`).send({
      name: 'Morning digest',
      cron: '0 8 * * *',
      timezone: 'Europe/Paris',
      message: 'Summarise the night',
      thread: 'fixed',
    });
    expect(created.status).toBe(201);
    const schedule: TSchedule = ZSchedule.parse(created.body);
    const [first, second] = schedule.next_fire_times;
    if (first === undefined || second === undefined) throw new Error('a daily schedule has next fire times');

    const firstRun = await fireAndAwaitEnd(first);
    const run = await ctx.database.prisma.agentRun.findUniqueOrThrow({
      where: { agentId_id: { agentId, id: firstRun } },
    });
    expect(run).toMatchObject({
      source: 'schedule',
      issuer,
      subject: owner.userId,
      threadId: `schedule:${schedule.id}`,
    });

    // The next tick continues the one thread: the agent answers with the first exchange before it.
    await fireAndAwaitEnd(second);
    const threadPath = `/agent/threads/${encodeURIComponent(`schedule:${schedule.id}`)}`;
    const thread = (await readAsOwner(threadPath)) as { messages: { role: string; content: unknown }[] };
    expect(thread.messages.map(({ role, content }) => ({ role, content }))).toEqual([
      { role: 'user', content: 'Summarise the night' },
      { role: 'assistant', content: 'You said: Summarise the night' },
      { role: 'user', content: 'Summarise the night' },
      { role: 'assistant', content: 'You said: Summarise the night' },
    ]);
    // Listed among the owner's threads, where the playground finds it.
    const listed = (await readAsOwner('/agent/threads')) as { thread_id: string; title: string }[];
    expect(listed).toContainEqual(
      expect.objectContaining({ thread_id: `schedule:${schedule.id}`, title: 'Summarise the night' }),
    );

    // The schedule reports its last run's end, and nothing failed.
    const read = await owner.agent.get(`/api/v1/agents/${agentId}/schedules/${schedule.id}`);
    expect(ZSchedule.parse(read.body)).toMatchObject({
      consecutive_failures: 0,
      last_fire: { tick: second, outcome: 'queued', run_status: 'succeeded' },
    });
  });
});
