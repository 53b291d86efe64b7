// A pool's login role, played as the attacker: by itself it reads and writes nothing, and it acts for an
// agent only under SET LOCAL ROLE to an agent role placed on it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { issueTestEngineCredentials, issueTestPoolCredentials } from '../testing/engine-credentials.js';
import { makeAgent, makeWorkspace } from '../testing/factories.js';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.js';
import { engineRoleName } from './engine-role-names.js';
import { placeAgentRole, poolsHoldingAgent, readMisplacedAgents } from './pool-roles.js';

const INSUFFICIENT_PRIVILEGE = '42501';

let database: TestDatabase;
let client: pg.Client;
let pool: string;
let placed: string;
let dedicated: string;

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  );

async function asAgent<T>(agentId: string, work: () => Promise<T>): Promise<T> {
  try {
    await client.query(`BEGIN; SET LOCAL ROLE ${engineRoleName(agentId)}`);
    return await work();
  } finally {
    await client.query('ROLLBACK');
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  const [a, b] = await Promise.all([
    makeAgent(database.prisma, workspace.id),
    makeAgent(database.prisma, workspace.id),
  ]);
  placed = a.id;
  dedicated = b.id;
  for (const [agentId, label] of [
    [placed, 'placed'],
    [dedicated, 'dedicated'],
  ] as const) {
    await database.prisma.engineConfig.create({
      data: { agentId, workspaceId: workspace.id, version: 3n, config: { label } },
    });
  }
  // Role names are cluster-wide and suites share the server: each suite's pool has a name of its own.
  pool = `t_${randomBytes(6).toString('hex')}`;
  await issueTestEngineCredentials(database, dedicated);
  const credentials = await issueTestPoolCredentials(database, pool, [placed]);
  client = await database.connectClient({ url: credentials.DATABASE_URL });
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

describe("a pool's role", () => {
  it.each(['engine_configs', 'engine_channels', 'conversation_threads', 'agent_runs', 'agents', 'users'])(
    'reads nothing of %s by itself',
    async (table) => {
      expect(await codeOf(client.query(`SELECT * FROM ${table}`))).toBe(INSUFFICIENT_PRIVILEGE);
    },
  );

  it('writes nothing by itself', async () => {
    expect(await codeOf(client.query("UPDATE engine_configs SET config = '{}'"))).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await codeOf(client.query('CREATE TABLE public.mine (x int)'))).toBe(INSUFFICIENT_PRIVILEGE);
  });

  it('is NOINHERIT, a plain role, with session timeouts', async () => {
    const { rows } = await client.query(
      `SELECT rolinherit, rolsuper, rolcreaterole, rolbypassrls, current_setting('statement_timeout') AS timeout
       FROM pg_roles WHERE rolname = current_user`,
    );
    expect(rows).toEqual([
      { rolinherit: false, rolsuper: false, rolcreaterole: false, rolbypassrls: false, timeout: '1min' },
    ]);
  });

  it("reads its placed agent's rows under that agent's role, and only them", async () => {
    const rows = await asAgent(placed, async () => (await client.query('SELECT agent_id FROM engine_configs')).rows);
    expect(rows).toEqual([{ agent_id: placed }]);
  });

  it('cannot take the role of an agent not placed on it', async () => {
    expect(await codeOf(asAgent(dedicated, () => client.query('SELECT 1')))).toBe(INSUFFICIENT_PRIVILEGE);
  });

  it('learns its agents, their config versions and channels from engine_placements()', async () => {
    const { rows } = await client.query('SELECT agent_id, config_version::int AS version FROM engine_placements()');
    expect(rows).toEqual([{ agent_id: placed, version: 3 }]);
  });

  it('loses an agent moved off it, at once, and gets one moved onto it', async () => {
    await placeAgentRole(database.prisma, placed, undefined);
    await placeAgentRole(database.prisma, dedicated, pool);
    try {
      expect(await poolsHoldingAgent(database.prisma, placed)).toEqual([]);
      expect(await codeOf(asAgent(placed, () => client.query('SELECT 1')))).toBe(INSUFFICIENT_PRIVILEGE);
      const { rows } = await client.query('SELECT agent_id FROM engine_placements()');
      expect(rows).toEqual([{ agent_id: dedicated }]);
    } finally {
      await placeAgentRole(database.prisma, dedicated, undefined);
      await placeAgentRole(database.prisma, placed, pool);
    }
  });
});

describe('readMisplacedAgents', () => {
  it('finds the agents whose pool grants differ from their recorded placement, and none once they agree', async () => {
    await database.prisma.agent.update({
      where: { id: placed },
      data: { deploymentMode: 'pool', deploymentPool: pool },
    });
    try {
      expect(await readMisplacedAgents(database.prisma)).toEqual([]);
      // Recorded on the pool but not granted, and granted but recorded as dedicated.
      await placeAgentRole(database.prisma, placed, undefined);
      await placeAgentRole(database.prisma, dedicated, pool);
      const misplaced = await readMisplacedAgents(database.prisma);
      expect(misplaced).toHaveLength(2);
      expect(misplaced).toEqual(
        expect.arrayContaining([
          { agentId: placed, pool },
          { agentId: dedicated, pool: null },
        ]),
      );
      for (const agent of misplaced) await placeAgentRole(database.prisma, agent.agentId, agent.pool ?? undefined);
      expect(await readMisplacedAgents(database.prisma)).toEqual([]);
    } finally {
      await placeAgentRole(database.prisma, dedicated, undefined);
      await placeAgentRole(database.prisma, placed, pool);
      await database.prisma.agent.update({
        where: { id: placed },
        data: { deploymentMode: 'dedicated', deploymentPool: null },
      });
    }
  });
});

describe("a dedicated engine's role", () => {
  it('is a pool of one: engine_placements() names its own agent only', async () => {
    const credentials = await issueTestEngineCredentials(database, dedicated);
    const own = await database.connectClient({ url: credentials.DATABASE_URL });
    try {
      const { rows } = await own.query('SELECT agent_id FROM engine_placements()');
      expect(rows).toEqual([{ agent_id: dedicated }]);
      // SET LOCAL ROLE to itself is allowed, so one code path serves both placements.
      await own.query(`BEGIN; SET LOCAL ROLE ${engineRoleName(dedicated)}`);
      expect((await own.query('SELECT agent_id FROM engine_configs')).rows).toEqual([{ agent_id: dedicated }]);
      await own.query('ROLLBACK');
    } finally {
      await own.end();
    }
  });
});
