// What a manager brings in line with agents' placements at start: the roles of the pools in
// ENGINE_POOLS (one an operator added included), each pool role's grants as the agents' placements say,
// and each stored config sealed with its placement's key where another key sealed it.
import { mapEngineConfigSecrets, type TEngineConfig } from '@agentplane/contracts';
import {
  createAgentKeyring,
  createAgentSecretBox,
  createSecretBox,
  deriveAgentKey,
  derivePoolKey,
  placeAgentRole,
  poolRoleName,
  poolsHoldingAgent,
} from '@agentplane/db';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadManagerConfig } from '../config.js';
import {
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
  TEST_SECRETS_KEY,
  uniquePoolName,
} from '../testing/manager-test-app.js';
import { agentBody, mcpServerBody } from '../testing/resource-fixtures.js';
import { upgradeStoredData } from './upgrade-stored-data.js';

const [A, ADDED] = [uniquePoolName('a'), uniquePoolName('added')];

let ctx: ManagerTestContext;
let owner: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp({ ENGINE_POOLS: `${A}=http://127.0.0.1:8101`, DEFAULT_ENGINE_POOL: A });
  owner = await signUpUser(ctx.app);
});
afterAll(() => ctx?.close());

/** As server.ts calls it, with the pools of `ENGINE_POOLS`. */
function upgrade(enginePools = `${A}=http://127.0.0.1:8101`) {
  const config = loadManagerConfig({
    DATABASE_URL: ctx.database.url,
    SECRETS_KEY: TEST_SECRETS_KEY,
    ENGINE_POOLS: enginePools,
  });
  return upgradeStoredData(ctx.database.prisma, {
    box: createSecretBox(TEST_SECRETS_KEY),
    agentKeys: createAgentKeyring(TEST_SECRETS_KEY),
    prices: config.modelPrices,
    versionRetention: config.agentVersionRetention,
    engineRoles: config.engines.roles,
    enginePools: config.engines.pools,
  });
}

async function createAgent(deployment?: object): Promise<string> {
  const mcp = await owner.agent.post('/api/v1/mcp-servers/').send(mcpServerBody());
  const body = agentBody({ mcp_server_ids: [mcp.body.id] }, deployment ? { deployment } : {});
  const response = await owner.agent.post('/api/v1/agents/').send(body);
  expect(response.status).toBe(201);
  return response.body.id;
}

const storedRow = (agentId: string) => ctx.database.prisma.engineConfig.findUniqueOrThrow({ where: { agentId } });

function headerOpenedWith(config: unknown, key: string, agentId: string): string | undefined {
  try {
    const box = createAgentSecretBox(key, agentId);
    return mapEngineConfigSecrets(config as TEngineConfig, box.open).mcp_servers[0]?.headers.Authorization;
  } catch {
    return undefined;
  }
}

describe('at start-up', () => {
  it("re-seals a pooled agent's config that another key sealed (its own, as a dedicated engine's), once", async () => {
    const agentId = await createAgent();
    const poolKey = derivePoolKey(TEST_SECRETS_KEY, A);
    const agentKey = deriveAgentKey(TEST_SECRETS_KEY, agentId);
    const row = await storedRow(agentId);
    const plain = mapEngineConfigSecrets(row.config as TEngineConfig, createAgentSecretBox(poolKey, agentId).open);
    const wrong = mapEngineConfigSecrets(plain, createAgentSecretBox(agentKey, agentId).seal);
    await ctx.database.prisma.engineConfig.update({ where: { agentId }, data: { config: wrong as object } });

    await upgrade();
    const upgraded = await storedRow(agentId);
    expect(upgraded.version).toBe(row.version + 1n);
    expect(headerOpenedWith(upgraded.config, poolKey, agentId)).toBe('Bearer mcp-secret-header');
    expect(headerOpenedWith(upgraded.config, agentKey, agentId)).toBeUndefined();
    await upgrade();
    expect((await storedRow(agentId)).version).toBe(row.version + 1n);
  });

  it('grants and revokes pool roles as the placements say, and a second start finds nothing to do', async () => {
    const pooled = await createAgent();
    const dedicated = await createAgent({ mode: 'dedicated' });
    // Grants changed by hand: the pooled agent's taken away, the dedicated one's given.
    await placeAgentRole(ctx.database.prisma, pooled, undefined);
    await placeAgentRole(ctx.database.prisma, dedicated, A);

    expect(await upgrade()).toMatchObject({ placed: 2, unserved: 0 });
    expect(await poolsHoldingAgent(ctx.database.prisma, pooled)).toEqual([A]);
    expect(await poolsHoldingAgent(ctx.database.prisma, dedicated)).toEqual([]);
    expect(await upgrade()).toMatchObject({ placed: 0 });
  });

  it('makes the role of a pool the operator added, with its settings, and places the agents recorded on it', async () => {
    const agentId = await createAgent();
    // Recorded on a pool this manager did not serve yet, as after an operator's edit of the rows.
    await ctx.database.prisma.agent.update({ where: { id: agentId }, data: { deploymentPool: ADDED } });
    expect(await upgrade()).toMatchObject({ unserved: 1 });
    expect(await poolsHoldingAgent(ctx.database.prisma, agentId)).toEqual([A]);

    const outcome = await upgrade(`${A}=http://127.0.0.1:8101,${ADDED}=http://127.0.0.1:8102`);
    expect(outcome).toMatchObject({ placed: 1, unserved: 0 });
    expect(await poolsHoldingAgent(ctx.database.prisma, agentId)).toEqual([ADDED]);
    const [role] = await ctx.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      'SELECT rolcanlogin, rolinherit, rolconnlimit FROM pg_roles WHERE rolname = $1',
      poolRoleName(ADDED),
    );
    expect(role).toEqual({ rolcanlogin: false, rolinherit: false, rolconnlimit: 24 });
  });
});
