// A pool engine against a real PostgreSQL: many agents in one process, each under /agents/{id} with the
// whole engine API, learnt from engine_placements(), loaded at first request, unloaded when idle, and
// each statement of an agent's run under that agent's role, its pinned versions' configs its own.
import { randomBytes, randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import {
  createAgentSecretBox,
  deriveAgentKey,
  derivePoolKey,
  placeAgentRole,
  provisionEngineRole,
} from '@agentplane/db';
import {
  createTestDatabase,
  issueTestPoolCredentials,
  makeAgent,
  makeWorkspace,
  type PoolCredentialsEnv,
  TEST_ENGINE_ROLE_SETTINGS,
  TEST_PLATFORM_KEY,
  type TestDatabase,
} from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSecretOpener } from '../config-source/parse-engine-config.js';
import { readPinnedConfig } from '../config-source/read-pinned-config.js';
import { createAgentDb } from '../database/agent-db.js';
import type { RunningEngine } from '../start-engine.js';
import { type AgentRow, writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { queueExperimentRun, readRunReply, waitForRunEnd, writePinnedConfigRow } from '../testing/experiment-runs.js';
import { joinText, readEventStream } from '../testing/read-event-stream.js';
import { runWithClient } from '../testing/run-with-client.js';
import { startTestEngine } from '../testing/test-engine.js';

let database: TestDatabase;
let workspaceId: string;
let pool: string;
let credentials: PoolCredentialsEnv;
let engine: RunningEngine;
let alice: AgentRow;
let bob: AgentRow;

async function newAgent(name: string): Promise<AgentRow> {
  const agent = await makeAgent(database.prisma, workspaceId);
  const row = { agentId: agent.id, workspaceId };
  await provisionEngineRole(database.prisma, agent.id, TEST_ENGINE_ROLE_SETTINGS);
  await writeConfigRow(database.prisma, row, 1, makeLlmEngineConfig({ ...row, name }));
  return row;
}

const base = (agent: AgentRow) => `${engine.url}/agents/${agent.agentId}`;

function run(agent: AgentRow, content: string, threadId: string = randomUUID()) {
  return fetch(`${base(agent)}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ threadId, runId: randomUUID(), messages: [{ id: randomUUID(), role: 'user', content }] }),
  });
}

async function say(agent: AgentRow, content: string, threadId?: string): Promise<string> {
  const response = await run(agent, content, threadId);
  expect(response.status).toBe(200);
  return joinText((await readEventStream(response)).events);
}

const poolHealth = async () =>
  (await (await fetch(`${engine.url}/health`)).json()) as { agents: { placed: number; loaded: number } };

beforeAll(async () => {
  database = await createTestDatabase();
  workspaceId = (await makeWorkspace(database.prisma)).id;
  alice = await newAgent('alice');
  bob = await newAgent('bob');
  // Role names are cluster-wide and suites share the server: this suite's pool has a name of its own.
  pool = `t_${randomBytes(6).toString('hex')}`;
  credentials = await issueTestPoolCredentials(database, pool, [alice.agentId, bob.agentId]);
  // A minute between polls: what this suite sees sooner comes from a request's own look, or NOTIFY.
  engine = await startTestEngine({ ...credentials, ENGINE_CONFIG_POLL_MS: '60000', ENGINE_POOL_DB_CONNECTIONS: '3' });
});

afterAll(async () => {
  await engine?.shutdown();
  await database?.drop();
});

describe('a pool engine', () => {
  it("serves each placed agent's API under /agents/{id}, to a stock HttpAgent", async () => {
    const agent = new HttpAgent({
      url: `${base(alice)}/agent/run`,
      threadId: randomUUID(),
      initialMessages: [{ id: randomUUID(), role: 'user', content: 'hello pool' }],
    });
    const result = await runWithClient(agent);
    expect(result.failure).toBeUndefined();
    expect(result.types.at(-1)).toBe('RUN_FINISHED');
    const config = (await (await fetch(`${base(bob)}/agent/config`)).json()) as { agent: { name: string } };
    expect(config.agent.name).toBe('bob');
    const health = (await (await fetch(`${base(bob)}/health`)).json()) as { status: string; config_version: number };
    expect(health).toMatchObject({ status: 'ok', config_version: 1 });
  });

  it('answers at its root with its own health, and 404 for what it does not serve', async () => {
    expect(await poolHealth()).toMatchObject({ agents: { placed: 2 } });
    expect((await fetch(`${engine.url}/agent/run`, { method: 'POST' })).status).toBe(404);
    for (const path of [`/agents/${randomUUID()}/health`, '/agents/not-a-uuid/health', '/agents/%00/health']) {
      const response = await fetch(`${engine.url}${path}`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it("serves each agent's OpenAPI document under /agents/{id}, its server that agent's base path", async () => {
    const response = await fetch(`${base(alice)}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { servers: { url: string }[]; paths: Record<string, unknown> };
    expect(document.servers).toEqual([{ url: `/agents/${alice.agentId}` }]);
    expect(Object.keys(document.paths)).toContain('/agent/run');
    // The pool's root is no agent's: it has no document.
    expect((await fetch(`${engine.url}/openapi.json`)).status).toBe(404);
  });

  it("keeps each agent's threads to itself, though one process and one login serve both", async () => {
    const threadId = randomUUID();
    expect(await say(alice, 'secret of alice', threadId)).toBe('You said: secret of alice');
    // The same thread id at bob is bob's own, empty thread: alice's rows are not under bob's role.
    expect(await say(bob, 'who is there?', threadId)).toBe('You said: who is there?');
    const rows = await database.prisma.agentRun.findMany({ where: { threadId }, select: { agentId: true } });
    expect(rows.map((row) => row.agentId).sort()).toEqual([alice.agentId, bob.agentId].sort());
    const threads = await database.prisma.conversationThread.findMany({
      where: { externalKey: { contains: threadId } },
      select: { agentId: true },
    });
    expect(threads.map((row) => row.agentId).sort()).toEqual([alice.agentId, bob.agentId].sort());
  });

  it('serves an agent placed after it started at its first request, with no poll in between', async () => {
    const carol = await newAgent('carol');
    await placeAgentRole(database.prisma, carol.agentId, pool);
    expect(await say(carol, 'new here')).toBe('You said: new here');
  });

  it('opens configs sealed with its pool key for the agent, and refuses one sealed with the agent key', async () => {
    const dave = await newAgent('dave');
    const poolBox = createAgentSecretBox(derivePoolKey(TEST_PLATFORM_KEY, pool), dave.agentId);
    const sealed = (value: string) => poolBox.seal(value);
    const config = makeLlmEngineConfig({
      ...dave,
      name: 'dave',
      model: { provider: 'mock', name: 'echo', apiKey: sealed('sk-dave') },
    });
    await writeConfigRow(database.prisma, dave, 2, config);
    await placeAgentRole(database.prisma, dave.agentId, pool);
    expect(await say(dave, 'sealed')).toBe('You said: sealed');

    const agentBox = createAgentSecretBox(deriveAgentKey(TEST_PLATFORM_KEY, dave.agentId), dave.agentId);
    const wrong = makeLlmEngineConfig({
      ...dave,
      name: 'dave wrong',
      model: { provider: 'mock', name: 'echo', apiKey: agentBox.seal('sk') },
    });
    await writeConfigRow(database.prisma, dave, 3, wrong);
    await database.prisma
      .$executeRaw`SELECT pg_notify(config_channel, 'config') FROM engine_channels WHERE agent_id = ${dave.agentId}::uuid`;
    await waitUntil(
      async () =>
        ((await (await fetch(`${base(dave)}/health`)).json()) as { rejected_config?: { version: number } })
          .rejected_config?.version === 3,
      { what: 'the config sealed with the wrong key to be refused' },
    );
    expect(((await (await fetch(`${base(dave)}/agent/config`)).json()) as { agent: { name: string } }).agent.name).toBe(
      'dave',
    );
  });

  it('stops serving an agent moved off it at its next look', async () => {
    const erin = await newAgent('erin');
    await placeAgentRole(database.prisma, erin.agentId, pool);
    expect(await say(erin, 'here')).toBe('You said: here');
    await placeAgentRole(database.prisma, erin.agentId, undefined);
    // Even before the pool's poll: the agent's next statement cannot take its role any more.
    const response = await run(erin, 'still?');
    expect([404, 503]).toContain(response.status);
    await response.body?.cancel();
  });

  it('holds no more database connections than ENGINE_POOL_DB_CONNECTIONS (+ LISTEN), whatever the agents', async () => {
    const agents = await Promise.all(Array.from({ length: 6 }, (_, i) => newAgent(`many-${i}`)));
    for (const agent of agents) await placeAgentRole(database.prisma, agent.agentId, pool);
    const replies = await Promise.all(agents.map((agent, i) => say(agent, `n${i}`)));
    expect(replies).toEqual(agents.map((_, i) => `You said: n${i}`));
    const [row] = await database.prisma.$queryRawUnsafe<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM pg_stat_activity WHERE usename = $1',
      `agentplane_pool_${pool}`,
    );
    expect(row?.count).toBeLessThanOrEqual(3 + 1);
  });

  it("runs a run pinned to a version with its config sealed with the pool key, and no agent reads another's pinned rows", async () => {
    const sealed = createAgentSecretBox(derivePoolKey(TEST_PLATFORM_KEY, pool), bob.agentId).seal('sk-bob-5');
    const model = { provider: 'mock' as const, name: 'echo', apiKey: sealed };
    await writePinnedConfigRow(database.prisma, bob, 5, makeLlmEngineConfig({ ...bob, name: 'bob 5', model }));
    // The pool's login, under each agent's role in turn, as the engine's handles are.
    const login = database.createPool({ url: credentials.DATABASE_URL, max: 1 });
    try {
      const aliceDb = createAgentDb(() => login.connect(), alice.agentId);
      const bobDb = createAgentDb(() => login.connect(), bob.agentId);
      expect((await aliceDb.query('SELECT version FROM pinned_engine_configs')).rows).toEqual([]);
      expect((await bobDb.query('SELECT version::int FROM pinned_engine_configs')).rows).toEqual([{ version: 5 }]);
      await expect(readPinnedConfig(aliceDb, bob.agentId, 5, createSecretOpener(undefined))).rejects.toThrow(
        'Agent version 5 has no config on this engine.',
      );
    } finally {
      await login.end();
    }
    // Both loaded, so that their queues hear of the runs at once (this suite polls once a minute).
    for (const agent of [alice, bob]) expect((await fetch(`${base(agent)}/health`)).status).toBe(200);
    const queue = (agent: AgentRow) =>
      queueExperimentRun(database.prisma, { ...agent, issuer: 'https://manager.test', version: 5, content: 'v5?' });
    const [bobs, alices] = [await queue(bob), await queue(alice)];
    expect(await waitForRunEnd(database.prisma, bob.agentId, bobs.runId)).toMatchObject({
      status: 'succeeded',
      agentVersion: 5,
    });
    expect(await readRunReply(database.prisma, bob.agentId, bobs.runId)).toBe('You said: v5?');
    expect(await waitForRunEnd(database.prisma, alice.agentId, alices.runId)).toMatchObject({
      status: 'failed',
      errorCode: 'version_unavailable',
    });
  });
});

describe('idle agents', () => {
  let idle: RunningEngine;

  beforeAll(async () => {
    idle = await startTestEngine({ ...credentials, ENGINE_POOL_IDLE_MS: '1000' });
  });

  afterAll(async () => {
    await idle?.shutdown();
  });

  it('are unloaded after ENGINE_POOL_IDLE_MS, and loaded again by their next request', async () => {
    const healthOf = async () => (await (await fetch(`${idle.url}/health`)).json()) as { agents: { loaded: number } };
    const response = await fetch(`${idle.url}/agents/${alice.agentId}/agent/config`);
    expect(response.status).toBe(200);
    expect((await healthOf()).agents.loaded).toBe(1);
    await waitUntil(async () => (await healthOf()).agents.loaded === 0, { what: 'the idle agent to be unloaded' });
    expect((await fetch(`${idle.url}/agents/${alice.agentId}/agent/config`)).status).toBe(200);
  });
});
