// What engine pools promise, end to end, with the manager and one pool engine as separate processes
// started as `pnpm start` starts them: a new user's agent answers a stock AG-UI client as soon as it is
// created, with no operator step; a change reaches it; its tenant's flood leaves another tenant's agent
// on the same pool unaffected; and deleting it ends its routes.
import { randomBytes, randomUUID } from 'node:crypto';
import { EventType, HttpAgent } from '@ag-ui/client';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { type FakeOpenAiServer, makeRunAgentInput, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { type PoolPlatform, startPoolPlatform } from './testing/pool-platform.js';
import { ServiceProcesses } from './testing/service-processes.js';

const FLOOD_RUNS = 200;
const FLOOD_BURST = 20;
// The runs one agent may have going at once on the pool (ENGINE_POOL_AGENT_CONCURRENCY, its default).
const AGENT_CONCURRENCY = 4;
// How long a deleted agent's routes may go on answering here; the 2 s target is `pnpm bench`'s business.
const ROUTES_END_WITHIN_MS = 15_000;

type Agent = { id: string; engine_url: string; deployment: object };

const services = new ServiceProcesses();
let database: TestDatabase;
let model: FakeOpenAiServer;
let platform: PoolPlatform;

beforeAll(async () => {
  [database, model] = await Promise.all([createTestDatabase(), startFakeOpenAiServer()]);
  platform = await startPoolPlatform(services, {
    managerEnv: {
      DATABASE_URL: database.url,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SESSION_SECRET: randomBytes(32).toString('base64'),
      // The flooding tenant's model is a loopback peer.
      EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
    },
    engineEnv: {
      ENGINE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      ENGINE_POOL_AGENT_CONCURRENCY: String(AGENT_CONCURRENCY),
      // The flood is one caller's: let all of it wait in the queue rather than be refused at the door.
      ENGINE_PENDING_RUNS_PER_SUBJECT: String(FLOOD_RUNS),
    },
  });
});

afterAll(async () => {
  await services.stopAll();
  await Promise.all([model?.close(), database?.drop()]);
});

const mockAgent = (name: string) => ({ name, framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } });

async function tokenFor(tenant: ManagerClient, agentId: string): Promise<string> {
  return (await tenant.expect<{ access_token: string }>(201, 'POST', `/agents/${agentId}/token`)).access_token;
}

/** One run streamed by a stock AG-UI client from the agent's engine_url, as any frontend would. */
async function streamRun(agent: Agent, token: string, content: string) {
  const client = new HttpAgent({
    url: `${agent.engine_url}/agent/run`,
    headers: { Authorization: `Bearer ${token}` },
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content }],
  });
  const events: string[] = [];
  const result = await client.runAgent({}, { onEvent: ({ event }) => void events.push(event.type) });
  return { events, reply: result.newMessages.find((message) => message.role === 'assistant')?.content };
}

async function runsOf(agentId: string, statuses: string[]): Promise<number> {
  const [row] = await database.prisma.$queryRaw<{ count: number }[]>`
    SELECT count(*)::int AS count FROM agent_runs WHERE agent_id = ${agentId}::uuid AND status = ANY(${statuses})`;
  return row?.count ?? 0;
}

it("serves a new user's agent at once, follows its changes, keeps its tenant's flood from another tenant's agent, and ends its routes when it is deleted", async () => {
  // 1. A new user signs up through the API and creates an agent: the operator's default puts it on the pool.
  const owner = await ManagerClient.signUp(platform.managerUrl);
  const agent = await owner.expect<Agent>(201, 'POST', '/agents/', mockAgent('first agent'));
  expect(agent.deployment).toEqual({ mode: 'pool', pool: platform.pool });
  expect(agent.engine_url).toBe(`${platform.poolUrl}/agents/${agent.id}`);

  // 2. A stock HttpAgent streams from it through the pool, with a token the manager mints: no other step.
  const token = await tokenFor(owner, agent.id);
  const first = await streamRun(agent, token, 'Hello through the pool');
  expect(first.events[0]).toBe(EventType.RUN_STARTED);
  expect(first.events.at(-1)).toBe(EventType.RUN_FINISHED);
  expect(first.reply).toContain('Hello through the pool');

  // A PATCH reaches the pooled agent: its served config has the new instructions.
  await owner.expect(200, 'PATCH', `/agents/${agent.id}`, {
    ...mockAgent('first agent, renamed'),
    agent: { model: { provider: 'mock', name: 'echo' }, instructions: 'Answer in one line.' },
  });
  const servedConfig = async () => {
    const response = await fetch(`${agent.engine_url}/agent/config`, { headers: { Authorization: `Bearer ${token}` } });
    return (await response.json()) as { agent: { name: string; config: { instructions?: string } } };
  };
  await waitUntil(async () => (await servedConfig()).agent.config.instructions === 'Answer in one line.', {
    what: 'the PATCH to reach the pooled agent',
  });
  expect((await servedConfig()).agent.name).toBe('first agent, renamed');

  // 3. The same tenant floods the pool: 200 background runs of another agent of its, whose model holds
  // every answer. A second tenant's agent sits on the same pool.
  let releaseModel = () => {};
  const held = new Promise<void>((resolve) => (releaseModel = resolve));
  model.script(...Array.from({ length: FLOOD_RUNS }, () => ({ gate: held, turn: { text: ['flood reply'] } })));
  const floodAgent = await owner.expect<Agent>(201, 'POST', '/agents/', {
    ...mockAgent('flooding agent'),
    agent: { model: { provider: 'openai', name: 'gpt-4o-mini', baseUrl: model.baseUrl } },
  });
  const neighbour = await ManagerClient.signUp(platform.managerUrl);
  const neighbourAgent = await neighbour.expect<Agent>(201, 'POST', '/agents/', mockAgent('neighbour agent'));
  expect([floodAgent.deployment, neighbourAgent.deployment]).toEqual([
    { mode: 'pool', pool: platform.pool },
    { mode: 'pool', pool: platform.pool },
  ]);
  const floodToken = await tokenFor(owner, floodAgent.id);
  // The flood is the agent's first requests: bursts that must load it once (one share of the pool).
  // Twenty at a time, as a client with a connection pool sends them: all at once, a loaded machine's
  // last enqueues would wait past the engine's connect timeout, and be refused with a 503 to retry.
  const accepted: number[] = [];
  for (let sent = 0; sent < FLOOD_RUNS; sent += FLOOD_BURST) {
    const burst = Array.from({ length: Math.min(FLOOD_BURST, FLOOD_RUNS - sent) }, async () => {
      const response = await fetch(`${floodAgent.engine_url}/agent/runs`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${floodToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(makeRunAgentInput('flood')),
      });
      return response.status;
    });
    accepted.push(...(await Promise.all(burst)));
  }
  expect(accepted).toEqual(Array(FLOOD_RUNS).fill(202));
  await waitUntil(() => model.requests.length === AGENT_CONCURRENCY, {
    what: "the flooding agent's first runs to reach its model",
  });

  // The second tenant's agent is unaffected meanwhile: a streamed run and a background run both finish.
  const neighbourToken = await tokenFor(neighbour, neighbourAgent.id);
  const during = await streamRun(neighbourAgent, neighbourToken, 'Still here?');
  expect(during.events.at(-1)).toBe(EventType.RUN_FINISHED);
  expect(during.reply).toContain('Still here?');
  const background = await fetch(`${neighbourAgent.engine_url}/agent/runs`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${neighbourToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(makeRunAgentInput('queued beside the flood')),
  });
  expect(background.status).toBe(202);
  const { run_id: runId } = (await background.json()) as { run_id: string };
  const runStatus = async () => {
    const response = await fetch(`${neighbourAgent.engine_url}/agent/runs/${runId}`, {
      headers: { Authorization: `Bearer ${neighbourToken}` },
    });
    return ((await response.json()) as { status: string }).status;
  };
  await waitUntil(async () => (await runStatus()) === 'succeeded', { what: 'the background run beside the flood' });
  // ...while the flood has not moved: its agent holds no more than its share of the pool, and the rest waits.
  expect(model.requests).toHaveLength(AGENT_CONCURRENCY);
  expect(await runsOf(floodAgent.id, ['running'])).toBe(AGENT_CONCURRENCY);
  expect(await runsOf(floodAgent.id, ['pending'])).toBe(FLOOD_RUNS - AGENT_CONCURRENCY);

  // Released, the flood drains too, every run of it.
  releaseModel();
  await waitUntil(async () => (await runsOf(floodAgent.id, ['succeeded'])) === FLOOD_RUNS, {
    what: 'the flood to drain',
    timeoutMs: 120_000,
  });

  // 4. Deleting the agent ends its routes: the pool answers 404 for it, as for an agent it never had.
  await owner.expect(204, 'DELETE', `/agents/${agent.id}`);
  await waitUntil(async () => (await fetch(`${agent.engine_url}/health`)).status === 404, {
    what: "the deleted agent's routes to answer 404",
    timeoutMs: ROUTES_END_WITHIN_MS,
  });
  const afterDelete = await fetch(`${agent.engine_url}/agent/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(makeRunAgentInput('anyone there?')),
  });
  expect(afterDelete.status).toBe(404);
  // The agents beside it on the pool go on.
  for (const other of [floodAgent, neighbourAgent])
    expect((await fetch(`${other.engine_url}/health`)).status).toBe(200);
});
