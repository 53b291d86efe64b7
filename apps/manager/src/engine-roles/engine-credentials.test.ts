// POST /agents/{id}/engine-credentials and the agent's database role around it: provisioned with the
// agent, rotated by each request (a platform operator's: never a workspace role's), dropped with the
// agent or its workspace.
import { randomUUID } from 'node:crypto';
import { mapEngineConfigSecrets, type TEngineConfig } from '@agentplane/contracts';
import { createAgentSecretBox, engineRoleName, isSealed } from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { setPlatformOperator } from '../auth/platform-operators.js';
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
import { engineDatabaseUrlFor } from './issue-engine-credentials.js';

type Credentials = { agent_id: string; database_url: string; agent_key: string };

let ctx: ManagerTestContext;
let operator: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp({ ENGINE_POOLS: `${POOL}=http://127.0.0.1:8101` });
  operator = await signUpUser(ctx.app);
  await makePlatformOperator(ctx, operator);
});
afterAll(async () => {
  await ctx?.close();
});

async function createAgent(user: SignedInUser, resources: Record<string, unknown> = {}): Promise<string> {
  const response = await user.agent.post('/api/v1/agents/').send(agentBody(resources));
  expect(response.status).toBe(201);
  return response.body.id;
}

async function roleExists(agentId: string): Promise<boolean> {
  const rows = await ctx.database.prisma.$queryRawUnsafe<unknown[]>(
    'SELECT 1 FROM pg_roles WHERE rolname = $1',
    engineRoleName(agentId),
  );
  return rows.length === 1;
}

/** Whether the agent's role may log in: it does once credentials were issued, never before. */
async function loginCapable(agentId: string): Promise<boolean> {
  const [role] = await ctx.database.prisma.$queryRawUnsafe<{ rolcanlogin: boolean }[]>(
    'SELECT rolcanlogin FROM pg_roles WHERE rolname = $1',
    engineRoleName(agentId),
  );
  return role?.rolcanlogin === true;
}

async function loginFails(databaseUrl: string): Promise<boolean> {
  return ctx.database.connectClient({ url: databaseUrl }).then(
    () => false,
    () => true,
  );
}

async function currentUserOf(databaseUrl: string): Promise<string> {
  const client = await ctx.database.connectClient({ url: databaseUrl });
  const { rows } = await client.query<{ user: string }>('SELECT current_user AS user');
  await client.end();
  return rows[0]?.user ?? '';
}

const POOL = uniquePoolName();
const credentialsPath = (agentId: string) => `/api/v1/agents/${agentId}/engine-credentials`;
const issue = (agentId: string) => operator.agent.post(credentialsPath(agentId));

describe('POST /agents/{id}/engine-credentials', () => {
  it("returns, once, the agent id, a URL of the agent's own role, and a key that opens its config and no other", async () => {
    const owner = await signUpUser(ctx.app);
    const mcp = await owner.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
    const agentId = await createAgent(owner, { mcp_server_ids: [mcp.body.id] });
    const otherAgentId = await createAgent(owner, { mcp_server_ids: [mcp.body.id] });

    const response = await issue(agentId);
    expect(response.status).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const credentials = response.body as Credentials;
    expect(Object.keys(credentials).sort()).toEqual(['agent_id', 'agent_key', 'database_url']);
    expect(credentials.agent_id).toBe(agentId);
    expect(await currentUserOf(credentials.database_url)).toBe(engineRoleName(agentId));
    // Host, port and database are the manager's own; only the user and password are the role's.
    const [platform, engine] = [new URL(ctx.config.databaseUrl), new URL(credentials.database_url)];
    expect([engine.host, engine.pathname]).toEqual([platform.host, platform.pathname]);

    const stored = async (id: string) =>
      (await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId: id } })).config as TEngineConfig;
    const sealedHeader = (await stored(agentId)).mcp_servers[0]?.headers.Authorization ?? '';
    expect(isSealed(sealedHeader)).toBe(true);
    const box = createAgentSecretBox(credentials.agent_key, agentId);
    expect(mapEngineConfigSecrets(await stored(agentId), box.open).mcp_servers[0]?.headers).toEqual({
      Authorization: 'Bearer mcp-secret-header',
    });
    const otherHeader = (await stored(otherAgentId)).mcp_servers[0]?.headers.Authorization ?? '';
    expect(() => box.open(otherHeader)).toThrow();
    expect(() => createAgentSecretBox(credentials.agent_key, otherAgentId).open(otherHeader)).toThrow();
  });

  it('rotates the password: the previous one stops working at once', async () => {
    const owner = await signUpUser(ctx.app);
    const agentId = await createAgent(owner);
    const first = (await issue(agentId)).body as Credentials;
    expect(await loginFails(first.database_url)).toBe(false);
    const second = (await issue(agentId)).body as Credentials;
    expect(await loginFails(first.database_url)).toBe(true);
    expect(await currentUserOf(second.database_url)).toBe(engineRoleName(agentId));
    expect(second.agent_key).toBe(first.agent_key);
  });

  it('refuses every workspace role, owner included (403), and anonymous callers (401)', async () => {
    const owner = await signUpUser(ctx.app);
    const agentId = await createAgent(owner);
    for (const role of ['admin', 'member', 'viewer']) {
      const user = await signUpUser(ctx.app);
      await addToWorkspace(owner, user, role);
      const response = await user.agent.post(credentialsPath(agentId)).set('x-workspace-id', owner.workspaceId);
      expectProblemShape(response, 403);
      expect(response.body.detail).toMatch(/platform operator/);
    }
    const asOwner = await owner.agent.post(credentialsPath(agentId));
    expectProblemShape(asOwner, 403);
    expect(asOwner.body.detail).toMatch(/no workspace role is enough/);
    // Refused before the agent is looked up: an id's existence is no answer either.
    expectProblemShape(await owner.agent.post(credentialsPath(randomUUID())), 403);
    expectProblemShape(await request(ctx.app).post(credentialsPath(agentId)), 401);
    expect(await loginCapable(agentId)).toBe(false);
  });

  it("lets a platform operator in for any workspace's agent, and a revoked one no longer, at once", async () => {
    const owner = await signUpUser(ctx.app);
    const agentId = await createAgent(owner);
    expect((await issue(agentId)).status).toBe(201);
    expectProblemShape(await issue(randomUUID()), 404);
    expectProblemShape(await issue('not-a-uuid'), 400);
    const revoked = await signUpUser(ctx.app);
    await makePlatformOperator(ctx, revoked);
    expect((await revoked.agent.post(credentialsPath(agentId))).status).toBe(201);
    await setPlatformOperator(ctx.database.prisma, revoked.email, false);
    expectProblemShape(await revoked.agent.post(credentialsPath(agentId)), 403);
  });

  it("refuses a pooled agent's (409): its engines are its pool's, whose key seals its config", async () => {
    const owner = await signUpUser(ctx.app);
    const response = await owner.agent
      .post('/api/v1/agents/')
      .send(agentBody({}, { deployment: { mode: 'pool', pool: POOL } }));
    expect(response.status).toBe(201);
    const refused = await issue(response.body.id);
    expectProblemShape(refused, 409);
    expect(refused.body.detail).toMatch(/dedicated/);
    expect(await loginCapable(response.body.id)).toBe(false);
  });
});

describe("the agent's engine role", () => {
  it('comes with the agent, and goes with it: its credentials stop working', async () => {
    const owner = await signUpUser(ctx.app);
    const agentId = await createAgent(owner);
    expect(await roleExists(agentId)).toBe(true);
    const [role] = await ctx.database.prisma.$queryRawUnsafe<{ rolconnlimit: number; rolconfig: string[] }[]>(
      'SELECT rolconnlimit, rolconfig FROM pg_roles WHERE rolname = $1',
      engineRoleName(agentId),
    );
    // The defaults (ENGINE_DB_*): a limit, and no statement or idle transaction of an engine's without end.
    expect(role).toEqual({
      rolconnlimit: 20,
      rolconfig: ['statement_timeout=60000ms', 'idle_in_transaction_session_timeout=60000ms'],
    });
    const { database_url } = (await issue(agentId)).body as Credentials;
    expect((await owner.agent.delete(`/api/v1/agents/${agentId}`)).status).toBe(204);
    expect(await roleExists(agentId)).toBe(false);
    expect(await loginFails(database_url)).toBe(true);
  });

  it("goes with the agent's workspace", async () => {
    const owner = await signUpUser(ctx.app);
    const workspace = await owner.agent.post('/api/v1/workspaces/').send({ name: 'doomed' });
    const agentResponse = await owner.agent
      .post('/api/v1/agents/')
      .set('x-workspace-id', workspace.body.id)
      .send(agentBody());
    const agentId = agentResponse.body.id as string;
    expect(await roleExists(agentId)).toBe(true);
    expect((await owner.agent.delete(`/api/v1/workspaces/${workspace.body.id}`)).status).toBe(204);
    expect(await roleExists(agentId)).toBe(false);
  });
});

describe('deleting an agent whose engine made objects of its own', () => {
  // As the engine: a large object and a temporary table, with the session left open.
  async function makeObjectsAs(databaseUrl: string) {
    const client = await ctx.database.connectClient({ url: databaseUrl });
    await client.query(`SELECT lo_from_bytea(0, '\\x00ff'::bytea)`);
    await client.query('CREATE TEMP TABLE scratch (x int)');
    return client;
  }

  it('answers 204 for the agent and drops its role and objects', async () => {
    const owner = await signUpUser(ctx.app);
    const agentId = await createAgent(owner);
    const { database_url } = (await issue(agentId)).body as Credentials;
    const engine = await makeObjectsAs(database_url);
    try {
      expect((await owner.agent.delete(`/api/v1/agents/${agentId}`)).status).toBe(204);
      expect(await roleExists(agentId)).toBe(false);
      const [left] = await ctx.database.prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pg_largeobject_metadata WHERE lomowner::regrole::text = $1`,
        engineRoleName(agentId),
      );
      expect(left?.n).toBe(0);
    } finally {
      await engine.end().catch(() => undefined);
    }
  });

  it('answers 204 for its workspace', async () => {
    const owner = await signUpUser(ctx.app);
    const workspace = await owner.agent.post('/api/v1/workspaces/').send({ name: 'doomed' });
    const created = await owner.agent
      .post('/api/v1/agents/')
      .set('x-workspace-id', workspace.body.id)
      .send(agentBody());
    const credentials = await issue(created.body.id);
    const engine = await makeObjectsAs((credentials.body as Credentials).database_url);
    try {
      expect((await owner.agent.delete(`/api/v1/workspaces/${workspace.body.id}`)).status).toBe(204);
      expect(await roleExists(created.body.id)).toBe(false);
    } finally {
      await engine.end().catch(() => undefined);
    }
  });
});

describe('engineDatabaseUrlFor', () => {
  it("keeps ENGINE_DATABASE_URL's address and options and puts in the role's user and password", () => {
    const url = engineDatabaseUrlFor(
      'postgresql://ignored:ignored@db.internal:6543/agentplane?sslmode=require',
      'agentplane_engine_0123',
      'p@ss/word',
    );
    expect(url).toBe('postgresql://agentplane_engine_0123:p%40ss%2Fword@db.internal:6543/agentplane?sslmode=require');
  });
});
