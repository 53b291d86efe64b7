// The start-up upgrade: agents from before engine roles get their role and their config re-sealed with
// their own key, by however many managers start at once, and a second run changes nothing.
import { randomBytes } from 'node:crypto';
import { mapEngineConfigSecrets, type TEngineConfig } from '@agentplane/contracts';
import {
  canCreateRoles,
  createAgentKeyring,
  createAgentSecretBox,
  createPrisma,
  createSecretBox,
  dropEngineRole,
  engineRoleName,
} from '@agentplane/db';
import { issueTestEngineCredentials } from '@agentplane/db/testing';
import { ConfigError, createLogger } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createManagerApp } from '../app.js';
import {
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
} from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody } from '../testing/resource-fixtures.js';
import { MISSING_CREATEROLE, requireCreateRole } from './require-create-role.js';
import { upgradeEngineRoles } from './upgrade-engine-roles.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(async () => {
  await ctx?.close();
});

const platformBox = createSecretBox(TEST_SECRETS_KEY);
const agentKeys = createAgentKeyring(TEST_SECRETS_KEY);
const engineRoles = { connectionLimit: 5, statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 30_000 };
const upgrade = () =>
  upgradeEngineRoles(ctx.database.prisma, {
    box: platformBox,
    agentKeys,
    prices: {},
    engineRoles,
    versionRetention: 100,
    enginePools: { urls: new Map(), defaultDeployment: { mode: 'dedicated' }, roles: engineRoles },
  });

/** Puts an agent back as it was before engine roles: no role, its config sealed with the platform key. */
async function makeLegacy(agentId: string): Promise<bigint> {
  const row = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
  const plain = mapEngineConfigSecrets(row.config as TEngineConfig, agentKeys.boxFor(agentId).open);
  const legacy = mapEngineConfigSecrets(plain, platformBox.seal);
  await ctx.database.prisma.engineConfig.update({ where: { agentId }, data: { config: legacy as object } });
  await dropEngineRole(ctx.database.prisma, agentId);
  return row.version;
}

describe('upgrading agents created before engine roles', () => {
  it('gives them a role and re-seals their config with their own key, once, with managers starting together', async () => {
    const owner = await signUpUser(ctx.app);
    const mcp = await owner.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
    const created = await owner.agent.post('/api/v1/agents/').send(agentBody({ mcp_server_ids: [mcp.body.id] }));
    const agentId = created.body.id as string;
    const version = await makeLegacy(agentId);

    const counts = await Promise.all([upgrade(), upgrade()]);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(1);
    const roles = await ctx.database.prisma.$queryRawUnsafe<unknown[]>(
      'SELECT 1 FROM pg_roles WHERE rolname = $1',
      engineRoleName(agentId),
    );
    expect(roles).toHaveLength(1);
    const row = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
    expect(row.version).toBe(version + 1n);
    const agentBox = createAgentSecretBox(agentKeys.keyFor(agentId), agentId);
    expect(mapEngineConfigSecrets(row.config as TEngineConfig, agentBox.open).mcp_servers[0]?.headers).toEqual({
      Authorization: 'Bearer mcp-secret-header',
    });

    expect(await upgrade()).toBe(0);
    expect((await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } })).version).toBe(
      version + 1n,
    );
  });
});

describe('upgrading configs published before URL queries were secrets', () => {
  it("seals the query of an MCP server's url with the agent's key, once", async () => {
    const owner = await signUpUser(ctx.app);
    const url = 'https://mcp.example.com/mcp?api_key=legacy-query-0123456789';
    const mcp = await owner.agent.post('/api/v1/mcp-servers/').send(mcpServerBody({ url }));
    const created = await owner.agent.post('/api/v1/agents/').send(agentBody({ mcp_server_ids: [mcp.body.id] }));
    const agentId = created.body.id as string;
    const agentBox = createAgentSecretBox(agentKeys.keyFor(agentId), agentId);
    // As it was published then: the query in plaintext, every other secret sealed with the agent's key.
    const row = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
    const published = row.config as TEngineConfig;
    const legacy = { ...published, mcp_servers: published.mcp_servers.map((server) => ({ ...server, url })) };
    await ctx.database.prisma.engineConfig.update({ where: { agentId }, data: { config: legacy as object } });

    await upgrade();
    const upgraded = await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });
    expect(upgraded.version).toBe(row.version + 1n);
    expect(JSON.stringify(upgraded.config)).not.toContain('legacy-query');
    expect(mapEngineConfigSecrets(upgraded.config as TEngineConfig, agentBox.open).mcp_servers[0]?.url).toBe(url);
    await upgrade();
    expect((await ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } })).version).toBe(
      row.version + 1n,
    );
  });
});

describe('an engine role holding the advisory lock the upgrade once took', () => {
  it('does not hold the upgrade up', async () => {
    const owner = await signUpUser(ctx.app);
    const created = await owner.agent.post('/api/v1/agents/').send(agentBody());
    const agentId = created.body.id as string;
    const { DATABASE_URL } = await issueTestEngineCredentials(ctx.database, agentId);
    const engine = await ctx.database.connectClient({ url: DATABASE_URL });
    const { rows } = await engine.query(
      "SELECT pg_try_advisory_lock(hashtext('agentplane.engine-roles.upgrade')) AS held",
    );
    expect(rows).toEqual([{ held: true }]);
    await makeLegacy(agentId);
    expect(await upgrade()).toBe(1);
    await engine.end();
  });
});

describe('a manager whose database user lacks CREATEROLE', () => {
  const role = `agentplane_test_nocreaterole_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(16).toString('hex');
  let restricted: ReturnType<typeof createPrisma>;

  beforeAll(async () => {
    await ctx.database.prisma.$executeRawUnsafe(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    const url = new URL(ctx.database.url);
    url.username = role;
    url.password = password;
    restricted = createPrisma(url.toString(), { maxConnections: 1 });
  });
  afterAll(async () => {
    await restricted?.$disconnect();
    await ctx.database.prisma.$executeRawUnsafe(`DROP ROLE IF EXISTS ${role}`);
  });

  it('stops at start-up and is not ready, saying what is missing', async () => {
    expect(await canCreateRoles(restricted)).toBe(false);
    await expect(requireCreateRole(restricted)).rejects.toThrow(ConfigError);
    await expect(requireCreateRole(restricted)).rejects.toThrow(/lacks CREATEROLE.*ALTER ROLE <user> CREATEROLE/);
    const app = createManagerApp({
      config: ctx.config,
      db: restricted,
      logger: createLogger({ name: 'test', level: 'silent' }),
    });
    const response = await request(app).get('/api/v1/readyz');
    expect(response.status).toBe(503);
    expect(response.body.detail).toBe(MISSING_CREATEROLE);
    await expect(requireCreateRole(ctx.database.prisma)).resolves.toBeUndefined();
  });
});
