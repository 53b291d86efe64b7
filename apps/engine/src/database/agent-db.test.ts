// An agent's handle on a shared pool logged in as a pool role (which can do nothing itself): every
// statement runs under the agent's own role, a refused role leaves no connection dirty, and statements
// for two agents on one connection never run under each other's role.
import { randomBytes } from 'node:crypto';
import { engineRoleName, provisionEngineRole } from '@agentplane/db';
import {
  createTestDatabase,
  issueTestPoolCredentials,
  makeAgent,
  makeWorkspace,
  TEST_ENGINE_ROLE_SETTINGS,
  type TestDatabase,
} from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { type AgentDb, createAgentDb } from './agent-db.js';

const INSUFFICIENT_PRIVILEGE = '42501';

let database: TestDatabase;
let pool: pg.Pool;
let alice: AgentDb;
let bob: AgentDb;
let aliceId: string;
let bobId: string;
let strangerId: string;

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  );

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  const agents = await Promise.all([1, 2, 3].map(() => makeAgent(database.prisma, workspace.id)));
  [aliceId, bobId, strangerId] = agents.map((agent) => agent.id) as [string, string, string];
  for (const agentId of [aliceId, bobId]) {
    await database.prisma.engineConfig.create({
      data: { agentId, workspaceId: workspace.id, version: 1n, config: { owner: agentId } },
    });
  }
  // The stranger has a role of its own, not placed on this pool.
  await provisionEngineRole(database.prisma, strangerId, TEST_ENGINE_ROLE_SETTINGS);
  const credentials = await issueTestPoolCredentials(database, `t_${randomBytes(6).toString('hex')}`, [aliceId, bobId]);
  // One connection: every handle shares it, so a role left behind would show at once.
  pool = new pg.Pool({ connectionString: credentials.DATABASE_URL, max: 1 });
  pool.on('error', () => {});
  alice = createAgentDb(() => pool.connect(), aliceId);
  bob = createAgentDb(() => pool.connect(), bobId);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe("an agent's database handle", () => {
  it("runs each statement under the agent's role, which sees the agent's rows only", async () => {
    const { rows } = await alice.query<{ who: string; owner: unknown }>(
      'SELECT current_user AS who, config AS owner FROM engine_configs',
    );
    expect(rows).toEqual([{ who: engineRoleName(aliceId), owner: { owner: aliceId } }]);
  });

  it('leaves no role on the connection: the login alone touches nothing', async () => {
    await alice.query('SELECT 1');
    expect(await codeOf(pool.query('SELECT * FROM engine_configs'))).toBe(INSUFFICIENT_PRIVILEGE);
    expect((await pool.query('SELECT current_user = session_user AS plain')).rows).toEqual([{ plain: true }]);
  });

  it("never runs a statement for one agent under the other agent's role, interleaved on one connection", async () => {
    const asked = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 'alice' : 'bob'));
    const answers = await Promise.all(
      asked.map(async (who) => {
        const db = who === 'alice' ? alice : bob;
        const { rows } = await db.query<{ user: string }>('SELECT current_user AS user');
        return rows[0]?.user;
      }),
    );
    expect(answers).toEqual(asked.map((who) => engineRoleName(who === 'alice' ? aliceId : bobId)));
  });

  it('is refused for an agent not placed on the login, and hands the connection back clean', async () => {
    const stranger = createAgentDb(() => pool.connect(), strangerId);
    expect(await codeOf(stranger.query('SELECT 1'))).toBe(INSUFFICIENT_PRIVILEGE);
    const client = await stranger.connect();
    expect(await codeOf(client.query('BEGIN'))).toBe(INSUFFICIENT_PRIVILEGE);
    client.release();
    // The only connection is usable, outside any transaction.
    expect((await pool.query('SELECT now() = statement_timestamp() AS fresh')).rows).toEqual([{ fresh: true }]);
  });

  it('takes the role at BEGIN on a checked-out connection, and gives each statement outside BEGIN its own', async () => {
    const client = await bob.connect();
    try {
      expect((await client.query<{ user: string }>('SELECT current_user AS user')).rows[0]?.user).toBe(
        engineRoleName(bobId),
      );
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const { rows } = await client.query<{ user: string; level: string }>(
        "SELECT current_user AS user, current_setting('transaction_isolation') AS level",
      );
      expect(rows).toEqual([{ user: engineRoleName(bobId), level: 'repeatable read' }]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  });

  it('prepares a named statement once per role on a connection, each role seeing its own rows through it', async () => {
    const statement = { name: 'configs-of-the-role', text: 'SELECT config AS owner FROM engine_configs' };
    for (let i = 0; i < 3; i++) {
      expect((await alice.query(statement)).rows).toEqual([{ owner: { owner: aliceId } }]);
      expect((await bob.query(statement)).rows).toEqual([{ owner: { owner: bobId } }]);
    }
    const { rows } = await pool.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements WHERE name LIKE 'configs-of-the-role%' ORDER BY name",
    );
    const keyOf = (id: string) => id.replaceAll('-', '').slice(0, 16);
    expect(rows.map((row) => row.name)).toEqual(
      [aliceId, bobId].map((id) => `configs-of-the-role:${keyOf(id)}`).sort(),
    );
  });

  it('discards a connection released inside a transaction rather than hand it on with the role', async () => {
    const client = await alice.connect();
    await client.query('BEGIN');
    client.release();
    expect((await pool.query('SELECT current_user = session_user AS plain')).rows).toEqual([{ plain: true }]);
  });
});
