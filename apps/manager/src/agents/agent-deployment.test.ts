// Where agents are served: placed on the operator's default pool, the workspace's, or the one the body
// names; a pooled agent's engine_url derived from its pool's URL; a move between placements re-grants
// its role, re-seals its config for the new engine's key and republishes it, under the agent's row
// lock, which a delete takes too.
import { randomUUID } from 'node:crypto';
import { mapEngineConfigSecrets, type TAgent, type TEngineConfig, ZAgent } from '@agentplane/contracts';
import { createAgentSecretBox, deriveAgentKey, derivePoolKey, engineRoleName, poolsHoldingAgent } from '@agentplane/db';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody } from '../testing/resource-fixtures.js';

const [A, B] = [uniquePoolName('a'), uniquePoolName('b')];
const URL_OF = { [A]: 'http://127.0.0.1:8101', [B]: 'https://pools.example.com/b' } as Record<string, string>;
const ON_A = { mode: 'pool', pool: A };
const ON_B = { mode: 'pool', pool: B };
const DEDICATED = { mode: 'dedicated' };

let ctx: ManagerTestContext;
let owner: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp({
    ENGINE_POOLS: `${A}=${URL_OF[A]}/,${B}=${URL_OF[B]}`,
    DEFAULT_ENGINE_POOL: A,
  });
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

async function create(user: SignedInUser, overrides: Record<string, unknown> = {}, resources = {}): Promise<TAgent> {
  const response = await user.agent.post('/api/v1/agents/').send(agentBody(resources, overrides));
  if (response.status !== 201) throw new Error(`create: ${response.status} ${response.text}`);
  return ZAgent.parse(response.body);
}

/** A full replacement of the agent as it was created, with `overrides`. */
function patch(user: SignedInUser, agent: TAgent, overrides: Record<string, unknown>) {
  const body = agentBody(agent.resources, { name: agent.name, ...overrides });
  return user.agent.patch(`/api/v1/agents/${agent.id}`).send(body);
}

/** An agent using an MCP server whose header is a secret, so that its stored config holds a sealed value. */
async function createWithSecret(user: SignedInUser, overrides: Record<string, unknown> = {}): Promise<TAgent> {
  const mcp = await user.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
  return create(user, overrides, { mcp_server_ids: [mcp.body.id] });
}

async function storedRow(agentId: string) {
  const row = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
  return { config: row.config as TEngineConfig, version: Number(row.version) };
}

/** Which of these keys open the agent's stored config (its MCP header), as an engine would with each. */
async function keysOpening(agentId: string, keys: Record<string, string>): Promise<string[]> {
  const { config } = await storedRow(agentId);
  return Object.entries(keys)
    .filter(([, key]) => {
      try {
        const opened = mapEngineConfigSecrets(config, createAgentSecretBox(key, agentId).open);
        return opened.mcp_servers[0]?.headers.Authorization === 'Bearer mcp-secret-header';
      } catch {
        return false;
      }
    })
    .map(([name]) => name);
}

const everyKey = (agentId: string) => ({
  [A]: derivePoolKey(TEST_SECRETS_KEY, A),
  [B]: derivePoolKey(TEST_SECRETS_KEY, B),
  agent: deriveAgentKey(TEST_SECRETS_KEY, agentId),
});

describe('placing an agent on create', () => {
  it("puts it on DEFAULT_ENGINE_POOL at once: its role granted to the pool's, engine_url derived, its config sealed for the pool's key only", async () => {
    const agent = await createWithSecret(owner);
    expect(agent.deployment).toEqual(ON_A);
    expect(agent.engine_url).toBe(`${URL_OF[A]}/agents/${agent.id}`);
    expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([A]);
    expect(await keysOpening(agent.id, everyKey(agent.id))).toEqual([A]);
    const read = await owner.agent.get(`/api/v1/agents/${agent.id}`);
    expect(read.body).toMatchObject({ deployment: ON_A, engine_url: agent.engine_url });
    const listed = await owner.agent.get('/api/v1/agents/');
    expect(listed.body.find((item: TAgent) => item.id === agent.id)).toMatchObject({
      deployment: ON_A,
      engine_url: agent.engine_url,
    });
    const stored = await ctx.database.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(stored).toMatchObject({ deploymentMode: 'pool', deploymentPool: A, engineUrl: null });
  });

  it("takes the workspace's default_deployment over the operator's, and the body's over both", async () => {
    const user = await signUpUser(ctx.app);
    const setDefault = (deployment: object | null) =>
      user.agent
        .patch(`/api/v1/workspaces/${user.workspaceId}`)
        .send({ name: 'placed', default_deployment: deployment });
    expect((await setDefault(ON_B)).status).toBe(200);
    const onB = await create(user);
    expect(onB.deployment).toEqual(ON_B);
    expect(onB.engine_url).toBe(`${URL_OF[B]}/agents/${onB.id}`);
    expect(await poolsHoldingAgent(ctx.database.prisma, onB.id)).toEqual([B]);
    const asked = await create(user, { deployment: ON_A });
    expect(await poolsHoldingAgent(ctx.database.prisma, asked.id)).toEqual([A]);

    expect((await setDefault(DEDICATED)).status).toBe(200);
    const dedicated = await create(user, { engine_url: 'https://engine.example.com' });
    expect(dedicated).toMatchObject({ deployment: DEDICATED, engine_url: 'https://engine.example.com' });
    expect(await poolsHoldingAgent(ctx.database.prisma, dedicated.id)).toEqual([]);
    expect((await setDefault(null)).status).toBe(200);
    expect((await create(user)).deployment).toEqual(ON_A);
  });

  it('refuses a pool the operator does not serve with a 422 naming deployment.pool, and creates nothing', async () => {
    const user = await signUpUser(ctx.app);
    const response = await user.agent
      .post('/api/v1/agents/')
      .send(agentBody({}, { deployment: { mode: 'pool', pool: 'nope' } }));
    expectProblemShape(response, 422);
    expect(response.body.errors).toEqual([{ path: 'deployment.pool', message: expect.stringContaining(A) }]);
    expect(await ctx.database.prisma.agent.count({ where: { workspaceId: user.workspaceId } })).toBe(0);
  });

  it('answers 4xx, never 5xx, to deployments that are not one', async () => {
    for (const deployment of [
      { mode: 'shared' },
      { mode: 'pool' },
      { mode: 'dedicated', pool: A },
      { mode: 'pool', pool: 7 },
      { mode: 'pool', pool: A, extra: true },
      { pool: A },
      'pool',
      { mode: 'pool', pool: 'x'.repeat(100_000) },
      { mode: 'pool', pool: 'a\u0000b' },
      { mode: 'pool', pool: 'a\ud800' },
    ]) {
      const response = await owner.agent.post('/api/v1/agents/').send(agentBody({}, { deployment }));
      expect([400, 422]).toContain(response.status);
      expectProblemShape(response, response.status);
    }
  });

  it('places agents created together, each on its pool', async () => {
    const agents = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(owner, { deployment: i % 2 ? ON_B : ON_A })),
    );
    for (const [i, agent] of agents.entries()) {
      expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([i % 2 ? B : A]);
    }
  });
});

describe("a pooled agent's engine_url", () => {
  it('is read-only: another value is a 422 that says why; none, or the derived one sent back, is accepted', async () => {
    const refused = await owner.agent
      .post('/api/v1/agents/')
      .send(agentBody({}, { engine_url: 'https://engine.example.com' }));
    expectProblemShape(refused, 422);
    expect(refused.body.errors).toEqual([
      { path: 'engine_url', message: expect.stringMatching(/derived from the pool/) },
    ]);

    const agent = await create(owner);
    const other = await patch(owner, agent, { engine_url: 'https://engine.example.com' });
    expectProblemShape(other, 422);
    expect(other.body.errors[0].path).toBe('engine_url');
    const echoed = await patch(owner, agent, { engine_url: agent.engine_url, deployment: agent.deployment });
    expect(echoed.status).toBe(200);
    expect(echoed.body.engine_url).toBe(agent.engine_url);
    expect((await patch(owner, agent, { engine_url: null })).body.engine_url).toBe(agent.engine_url);
  });
});

describe('moving an agent (PATCH of deployment)', () => {
  it("between pools: re-grants its role, re-seals its config for the new pool's key, bumps its version and NOTIFYs", async () => {
    const agent = await createWithSecret(owner, { deployment: ON_A });
    const before = await storedRow(agent.id);
    const [channel] = await ctx.database.prisma.$queryRaw<{ name: string }[]>`
      SELECT config_channel AS name FROM engine_channels WHERE agent_id = ${agent.id}::uuid`;
    const listener = await ctx.database.connectClient();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.channel));
    await listener.query(`LISTEN ${channel?.name}`);
    try {
      const moved = await patch(owner, agent, { deployment: ON_B });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ deployment: ON_B, engine_url: `${URL_OF[B]}/agents/${agent.id}` });
      expect(moved.body.engine_config_version).toBe(before.version + 1);
      expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([B]);
      expect(await keysOpening(agent.id, everyKey(agent.id))).toEqual([B]);
      await waitUntil(() => heard.length > 0, { what: "the moved agent's NOTIFY" });
    } finally {
      await listener.end();
    }
  });

  it('to dedicated and back: its own key, no pool role, the engine_url it is given; then its pool again', async () => {
    const agent = await createWithSecret(owner);
    const dedicated = await patch(owner, agent, { deployment: DEDICATED, engine_url: 'https://mine.example.com' });
    expect(dedicated.status).toBe(200);
    expect(dedicated.body).toMatchObject({ deployment: DEDICATED, engine_url: 'https://mine.example.com' });
    expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([]);
    expect(await keysOpening(agent.id, everyKey(agent.id))).toEqual(['agent']);

    const back = await patch(owner, agent, { deployment: ON_A });
    expect(back.body).toMatchObject({ deployment: ON_A, engine_url: `${URL_OF[A]}/agents/${agent.id}` });
    expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([A]);
    expect(await keysOpening(agent.id, everyKey(agent.id))).toEqual([A]);
    const stored = await ctx.database.prisma.agent.findUniqueOrThrow({ where: { id: agent.id } });
    expect(stored.engineUrl).toBeNull();
  });

  it('republishes a config without secrets too, so that the engines of both placements look again', async () => {
    const agent = await create(owner);
    const moved = await patch(owner, agent, { deployment: ON_B });
    expect(moved.body.engine_config_version).toBe(agent.engine_config_version + 1);
    const unchanged = await patch(owner, agent, { deployment: ON_B });
    expect(unchanged.body.engine_config_version).toBe(agent.engine_config_version + 1);
  });

  it('leaves the agent where it is when the PATCH leaves deployment out', async () => {
    const agent = await create(owner, { deployment: ON_B });
    const renamed = await owner.agent.patch(`/api/v1/agents/${agent.id}`).send(agentBody({}, { name: 'renamed' }));
    expect(renamed.body).toMatchObject({ name: 'renamed', deployment: ON_B });
    expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([B]);
  });

  it("refuses unknown pools (422), viewers (403), other workspaces' and unknown agents (404), anonymous callers (401)", async () => {
    const agent = await create(owner);
    const unknown = await patch(owner, agent, { deployment: { mode: 'pool', pool: 'gone' } });
    expectProblemShape(unknown, 422);
    expect(unknown.body.errors[0].path).toBe('deployment.pool');
    const viewer = await signUpUser(ctx.app);
    await addToWorkspace(owner, viewer, 'viewer');
    const body = agentBody({}, { name: agent.name, deployment: ON_B });
    expectProblemShape(
      await viewer.agent.patch(`/api/v1/agents/${agent.id}`).set('x-workspace-id', owner.workspaceId).send(body),
      403,
    );
    const stranger = await signUpUser(ctx.app);
    expectProblemShape(await stranger.agent.patch(`/api/v1/agents/${agent.id}`).send(body), 404);
    expectProblemShape(await owner.agent.patch(`/api/v1/agents/${randomUUID()}`).send(body), 404);
    expectProblemShape(await request(ctx.app).patch(`/api/v1/agents/${agent.id}`).send(body), 401);
    expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([A]);
  });
});

describe('a move racing a delete of the agent', () => {
  /** Holds the agent's row as another writer would, until `release`. */
  async function holdRow(agentId: string) {
    const holder = await ctx.database.connectClient();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM agents WHERE id = $1 FOR UPDATE', [agentId]);
    return { release: async () => holder.query('COMMIT').finally(() => holder.end()) };
  }

  const waiting = async () => {
    const [row] = await ctx.database.prisma.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`;
    return row?.n ?? 0;
  };

  /** Starts the request now (supertest sends on then), resolving to its response. */
  const start = (test: request.Test) => test.then((response) => response);

  it('the move first: both succeed, and the deleted agent leaves no role and no grant behind', async () => {
    const agent = await create(owner);
    const hold = await holdRow(agent.id);
    const moving = start(patch(owner, agent, { deployment: ON_B }));
    await waitUntil(async () => (await waiting()) === 1, { what: 'the move to wait for the row' });
    const deleting = start(owner.agent.delete(`/api/v1/agents/${agent.id}`));
    await waitUntil(async () => (await waiting()) === 2, { what: 'the delete to wait for the row' });
    await hold.release();
    expect((await moving).status).toBe(200);
    expect((await deleting).status).toBe(204);
    const roles = await ctx.database.prisma.$queryRawUnsafe<unknown[]>(
      'SELECT 1 FROM pg_roles WHERE rolname = $1',
      engineRoleName(agent.id),
    );
    expect(roles).toEqual([]);
  });

  it('the delete first: the move answers 404, not a server error, and grants nothing', async () => {
    const agent = await create(owner);
    const hold = await holdRow(agent.id);
    const deleting = start(owner.agent.delete(`/api/v1/agents/${agent.id}`));
    await waitUntil(async () => (await waiting()) === 1, { what: 'the delete to wait for the row' });
    const moving = start(patch(owner, agent, { deployment: ON_B }));
    await waitUntil(async () => (await waiting()) === 2, { what: 'the move to wait for the row' });
    await hold.release();
    expect((await deleting).status).toBe(204);
    expectProblemShape(await moving, 404);
    expect(await poolsHoldingAgent(ctx.database.prisma, agent.id)).toEqual([]);
  });
});
