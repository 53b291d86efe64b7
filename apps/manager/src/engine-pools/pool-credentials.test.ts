// POST /engine-pools/{name}/credentials: a pool's engines' credentials, for platform operators only.
// What it returns logs in as the pool's role, which serves the agents placed on the pool and opens
// their configs with the pool's key, and nothing of any other agent; the pools' roles count against
// the platform's total of engine connections as the agents' do.
import { mapEngineConfigSecrets, type TEngineConfig, type TPoolCredentials } from '@agentplane/contracts';
import { createAgentSecretBox, engineRoleName, poolRoleName } from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  makePlatformOperator,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody } from '../testing/resource-fixtures.js';

const [A, B, C] = [uniquePoolName('a'), uniquePoolName('b'), uniquePoolName('c')];

let ctx: ManagerTestContext;
let operator: SignedInUser;
let owner: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp({
    ENGINE_POOLS: `${A}=http://127.0.0.1:8101,${B}=http://127.0.0.1:8102,${C}=http://127.0.0.1:8103`,
    // Room for two pools' roles (24 each) and no more: an agent's (20) does not fit beside them.
    ENGINE_DB_CONNECTIONS_TOTAL: '50',
  });
  operator = await signUpUser(ctx.app);
  await makePlatformOperator(ctx, operator);
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

const credentialsPath = (pool: string) => `/api/v1/engine-pools/${pool}/credentials`;
const issue = (pool: string) => operator.agent.post(credentialsPath(pool));

async function createAgent(deployment: object, resources: Record<string, unknown> = {}): Promise<string> {
  const response = await owner.agent.post('/api/v1/agents/').send(agentBody(resources, { deployment }));
  expect(response.status).toBe(201);
  return response.body.id;
}

const storedConfig = async (agentId: string) =>
  (await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } })).config as TEngineConfig;

describe('POST /engine-pools/{name}/credentials', () => {
  it("returns, once, a login of the pool's role that serves its agents only, and the key of their configs only", async () => {
    const mcp = await owner.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
    const onA = await createAgent({ mode: 'pool', pool: A }, { mcp_server_ids: [mcp.body.id] });
    const onB = await createAgent({ mode: 'pool', pool: B }, { mcp_server_ids: [mcp.body.id] });
    const dedicated = await createAgent({ mode: 'dedicated' }, { mcp_server_ids: [mcp.body.id] });

    const response = await issue(A);
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const credentials = response.body as TPoolCredentials;
    expect(Object.keys(credentials).sort()).toEqual(['database_url', 'pool', 'pool_key']);
    expect(credentials.pool).toBe(A);
    const client = await ctx.database.connectClient({ url: credentials.database_url });
    try {
      expect((await client.query('SELECT current_user AS user')).rows).toEqual([{ user: poolRoleName(A) }]);
      expect((await client.query('SELECT agent_id FROM engine_placements()')).rows).toEqual([{ agent_id: onA }]);
      await client.query(`BEGIN; SET LOCAL ROLE ${engineRoleName(onA)}`);
      const { rows } = await client.query<{ config: TEngineConfig }>('SELECT config FROM engine_configs');
      await client.query('ROLLBACK');
      const box = createAgentSecretBox(credentials.pool_key, onA);
      expect(mapEngineConfigSecrets(rows[0]?.config as TEngineConfig, box.open).mcp_servers[0]?.headers).toEqual({
        Authorization: 'Bearer mcp-secret-header',
      });
      for (const other of [onB, dedicated]) {
        await expect(client.query(`BEGIN; SET LOCAL ROLE ${engineRoleName(other)}`)).rejects.toMatchObject({
          code: '42501',
        });
        await client.query('ROLLBACK');
        const header = (await storedConfig(other)).mcp_servers[0]?.headers.Authorization ?? '';
        expect(() => createAgentSecretBox(credentials.pool_key, other).open(header)).toThrow();
      }
    } finally {
      await client.end();
    }

    const second = await issue(A);
    expect(second.body.pool_key).toBe(credentials.pool_key);
    await expect(ctx.database.connectClient({ url: credentials.database_url })).rejects.toMatchObject({
      code: '28P01',
    });
  });

  it('refuses every workspace role (403), anonymous callers (401), unknown pools (404) and malformed names (400)', async () => {
    for (const role of ['admin', 'member', 'viewer']) {
      const user = await signUpUser(ctx.app);
      await addToWorkspace(owner, user, role);
      expectProblemShape(await user.agent.post(credentialsPath(A)).set('x-workspace-id', owner.workspaceId), 403);
    }
    expectProblemShape(await owner.agent.post(credentialsPath(A)), 403);
    expectProblemShape(await request(ctx.app).post(credentialsPath(A)), 401);
    expectProblemShape(await issue('nope'), 404);
    for (const name of ['Upper', '1digit', 'x'.repeat(33), 'a%00b', '%F0%9F%98%80']) {
      expectProblemShape(await issue(name), 400);
    }
  });

  it("count with their connection limit against the platform's total, as the agents' roles do (409 past it)", async () => {
    expect((await issue(A)).status).toBe(201);
    expect((await issue(B)).status).toBe(201);
    // 48 of 50 are given out: no agent's 20 fits, nor a third pool's 24; a rotation takes nothing more.
    const agentId = await createAgent({ mode: 'dedicated' });
    const agentRefused = await operator.agent.post(`/api/v1/agents/${agentId}/engine-credentials`);
    expectProblemShape(agentRefused, 409);
    expect(agentRefused.body.detail).toMatch(/ENGINE_DB_CONNECTION_LIMIT/);
    const poolRefused = await issue(C);
    expectProblemShape(poolRefused, 409);
    expect(poolRefused.body.detail).toMatch(/ENGINE_POOL_DB_CONNECTION_LIMIT/);
    expect((await issue(A)).status).toBe(201);
  });
});

describe('GET /engine-pools/', () => {
  it("lists the operator's pools and default placement to anyone signed in", async () => {
    const response = await owner.agent.get('/api/v1/engine-pools/');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      pools: [
        { name: A, public_url: 'http://127.0.0.1:8101' },
        { name: B, public_url: 'http://127.0.0.1:8102' },
        { name: C, public_url: 'http://127.0.0.1:8103' },
      ],
      default_deployment: { mode: 'dedicated' },
    });
    expectProblemShape(await request(ctx.app).get('/api/v1/engine-pools/'), 401);
  });
});
