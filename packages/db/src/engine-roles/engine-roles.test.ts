// The engine's side of the tenant boundary, played as the attacker: whatever runs in an engine holds
// its DATABASE_URL, and with it reaches its own agent's rows and nothing else.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { type EngineCredentialsEnv, issueTestEngineCredentials } from '../testing/engine-credentials.js';
import { makeAgent, makeUser, makeWorkspace } from '../testing/factories.js';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.js';
import { checkpointSchemaName, engineRoleName } from './engine-role-names.js';
import { dropEngineRole, provisionEngineRole, rotateEngineRolePassword } from './engine-roles.js';

const INSUFFICIENT_PRIVILEGE = '42501';
const INVALID_PASSWORD = '28P01';
const FOREIGN_KEY_VIOLATION = '23503';

let database: TestDatabase;
let mine: { agentId: string; credentials: EngineCredentialsEnv; client: pg.Client };
let otherAgentId: string;

async function errorCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  );
}

async function seedAgentRows(agentId: string, workspaceId: string, label: string): Promise<void> {
  await database.prisma.engineConfig.create({
    data: { agentId, workspaceId, version: 1n, config: { label } },
  });
  await database.prisma.inboundMessage.create({
    data: { agentId, integrationId: agentId, providerMessageId: `${label}-1`, sender: '100', payload: {} },
  });
  const thread = await database.prisma.conversationThread.create({
    data: { agentId, externalKey: `agui:${label}`, lastSeq: 1 },
  });
  await database.prisma.conversationMessage.create({
    data: { threadId: thread.id, agentId, seq: 1, message: { label } },
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  await makeUser(database.prisma);
  const [agent, other] = await Promise.all([
    makeAgent(database.prisma, workspace.id),
    makeAgent(database.prisma, workspace.id),
  ]);
  otherAgentId = other.id;
  await seedAgentRows(agent.id, workspace.id, 'mine');
  await seedAgentRows(other.id, workspace.id, 'theirs');
  const credentials = await issueTestEngineCredentials(database, agent.id);
  await issueTestEngineCredentials(database, other.id);
  mine = { agentId: agent.id, credentials, client: await database.connectClient({ url: credentials.DATABASE_URL }) };
});

afterAll(async () => {
  await database?.drop();
});

const query = (sql: string, values: unknown[] = []) => mine.client.query(sql, values);

describe("an engine's database role", () => {
  it('is a plain login role with a connection limit and session timeouts, in the engine group', async () => {
    const [role] = await database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolconnlimit,
              pg_has_role(rolname, 'agentplane_engine', 'MEMBER') AS grouped
       FROM pg_roles WHERE rolname = $1`,
      engineRoleName(mine.agentId),
    );
    expect(role).toEqual({
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolbypassrls: false,
      rolconnlimit: 50,
      grouped: true,
    });
    expect((await query('SELECT current_user AS user')).rows[0]?.user).toBe(engineRoleName(mine.agentId));
    // Its sessions start with timeouts, so that none holds a lock the manager waits for without end.
    const setting = async (name: string) => (await query(`SELECT current_setting('${name}') AS value`)).rows[0]?.value;
    expect(await setting('statement_timeout')).toBe('1min');
    expect(await setting('idle_in_transaction_session_timeout')).toBe('1min');
  });

  it.each([
    'users',
    'sessions',
    'memberships',
    'invitations',
    'rate_limit_counters',
    'signing_keys',
    'integrations',
    'mcp_servers',
    'sso_configs',
    'observability_configs',
    'agents',
    'workspaces',
  ])('cannot read %s', async (table) => {
    expect(await errorCodeOf(query(`SELECT * FROM ${table}`))).toBe(INSUFFICIENT_PRIVILEGE);
  });

  it('sees exactly one engine_configs row, its own, and cannot change it', async () => {
    const { rows } = await query('SELECT agent_id, config FROM engine_configs');
    expect(rows).toEqual([{ agent_id: mine.agentId, config: { label: 'mine' } }]);
    expect(await errorCodeOf(query(`UPDATE engine_configs SET config = '{}'`))).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await errorCodeOf(query('DELETE FROM engine_configs'))).toBe(INSUFFICIENT_PRIVILEGE);
    expect(
      await errorCodeOf(
        query(`INSERT INTO engine_configs (agent_id, workspace_id, version, config) VALUES ($1, $1, 9, '{}')`, [
          mine.agentId,
        ]),
      ),
    ).toBe(INSUFFICIENT_PRIVILEGE);
  });

  it('sees its own queue and threads only, and cannot write rows for another agent', async () => {
    expect((await query('SELECT provider_message_id FROM inbound_messages')).rows).toEqual([
      { provider_message_id: 'mine-1' },
    ]);
    expect((await query('SELECT external_key FROM conversation_threads')).rows).toEqual([
      { external_key: 'agui:mine' },
    ]);
    expect((await query('SELECT message FROM conversation_messages')).rows).toEqual([{ message: { label: 'mine' } }]);
    // Another agent's rows are not even there to update, or to delete (engines prune their own queue).
    expect(
      (await query(`UPDATE inbound_messages SET status = 'done' WHERE agent_id = $1`, [otherAgentId])).rowCount,
    ).toBe(0);
    expect((await query('DELETE FROM inbound_messages WHERE agent_id = $1', [otherAgentId])).rowCount).toBe(0);
    expect(await database.prisma.inboundMessage.count({ where: { agentId: otherAgentId } })).toBe(1);
    expect(
      await errorCodeOf(
        query(
          `INSERT INTO inbound_messages (agent_id, integration_id, provider_message_id, sender, payload)
           VALUES ($1, $1, 'forged', '1', '{}')`,
          [otherAgentId],
        ),
      ),
    ).toBe(INSUFFICIENT_PRIVILEGE);
    expect(
      await errorCodeOf(
        query(`INSERT INTO conversation_threads (agent_id, external_key) VALUES ($1, 'agui:forged')`, [otherAgentId]),
      ),
    ).toBe(INSUFFICIENT_PRIVILEGE);
  });

  it("cannot slip a message into another agent's thread, under either agent's id", async () => {
    const theirs = await database.prisma.conversationThread.findFirstOrThrow({ where: { agentId: otherAgentId } });
    const insert = (agentId: string) =>
      query(`INSERT INTO conversation_messages (thread_id, agent_id, seq, message) VALUES ($1, $2, 99, '{}')`, [
        theirs.id,
        agentId,
      ]);
    expect(await errorCodeOf(insert(otherAgentId))).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await errorCodeOf(insert(mine.agentId))).toBe(FOREIGN_KEY_VIOLATION);
  });

  it.each(['SELECT name FROM manager_locks FOR UPDATE', 'LOCK TABLE manager_locks'])(
    "cannot take the manager's locks: %s",
    async (sql) => {
      await query('BEGIN');
      try {
        expect(await errorCodeOf(query(sql))).toBe(INSUFFICIENT_PRIVILEGE);
      } finally {
        await query('ROLLBACK');
      }
    },
  );

  it.each(['SHARE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE'])(
    'cannot lock budget_spend, which every run end writes, in %s mode',
    async (mode) => {
      await query('BEGIN');
      try {
        expect(await errorCodeOf(query(`LOCK TABLE budget_spend IN ${mode} MODE`))).toBe(INSUFFICIENT_PRIVILEGE);
      } finally {
        await query('ROLLBACK');
      }
    },
  );

  it("reads its own agent's channel names only", async () => {
    const { rows } = await query('SELECT agent_id FROM engine_channels');
    expect(rows).toEqual([{ agent_id: mine.agentId }]);
    expect(await errorCodeOf(query(`UPDATE engine_channels SET run_channel = 'agent_x'`))).toBe(INSUFFICIENT_PRIVILEGE);
  });

  it('sees nothing once it sets its role to the engine group', async () => {
    const client = await database.connectClient({ url: mine.credentials.DATABASE_URL });
    await client.query('SET ROLE agentplane_engine');
    expect((await client.query('SELECT count(*)::int AS n FROM engine_configs')).rows[0]?.n).toBe(0);
    expect((await client.query('SELECT count(*)::int AS n FROM inbound_messages')).rows[0]?.n).toBe(0);
  });

  it("uses its own checkpoint schema, creates nothing in it, and cannot reach another agent's", async () => {
    const own = `"${checkpointSchemaName(mine.agentId)}"`;
    await query(`INSERT INTO ${own}.checkpoints (thread_id, checkpoint_id, checkpoint) VALUES ('t', 'c', '{}')`);
    expect((await query(`SELECT thread_id FROM ${own}.checkpoints`)).rows).toEqual([{ thread_id: 't' }]);
    expect((await query(`SELECT max(v)::int AS v FROM ${own}.checkpoint_migrations`)).rows).toEqual([{ v: 4 }]);
    expect(await errorCodeOf(query(`CREATE TABLE ${own}.mine (x int)`))).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await errorCodeOf(query(`SELECT * FROM "${checkpointSchemaName(otherAgentId)}".checkpoints`))).toBe(
      INSUFFICIENT_PRIVILEGE,
    );
  });
});

describe('provisioning', () => {
  it('is idempotent, and a dropped role takes its checkpoint schema with it', async () => {
    const workspace = await makeWorkspace(database.prisma);
    const agent = await makeAgent(database.prisma, workspace.id);
    await provisionEngineRole(database.prisma, agent.id, {
      connectionLimit: 3,
      statementTimeoutMs: 1000,
      idleInTransactionTimeoutMs: 1000,
    });
    await provisionEngineRole(database.prisma, agent.id, {
      connectionLimit: 3,
      statementTimeoutMs: 1000,
      idleInTransactionTimeoutMs: 1000,
    });
    await dropEngineRole(database.prisma, agent.id);
    const [row] = await database.prisma.$queryRawUnsafe<{ roles: number; schemas: number }[]>(
      `SELECT (SELECT count(*)::int FROM pg_roles WHERE rolname = $1) AS roles,
              (SELECT count(*)::int FROM pg_namespace WHERE nspname = $2) AS schemas`,
      engineRoleName(agent.id),
      checkpointSchemaName(agent.id),
    );
    expect(row).toEqual({ roles: 0, schemas: 0 });
    expect(await database.prisma.engineChannel.count({ where: { agentId: agent.id } })).toBe(0);
  });

  it('is dropped with a large object and a temporary table it made, its session still open', async () => {
    const workspace = await makeWorkspace(database.prisma);
    const agent = await makeAgent(database.prisma, workspace.id);
    const engine = await database.connectClient({
      url: (await issueTestEngineCredentials(database, agent.id)).DATABASE_URL,
    });
    await engine.query(`SELECT lo_from_bytea(0, 'x')`);
    await engine.query('CREATE TEMP TABLE scratch (x int)');
    await dropEngineRole(database.prisma, agent.id);
    const [row] = await database.prisma.$queryRawUnsafe<{ roles: number }[]>(
      'SELECT count(*)::int AS roles FROM pg_roles WHERE rolname = $1',
      engineRoleName(agent.id),
    );
    expect(row).toEqual({ roles: 0 });
  });

  it('is shut out for good when what it made in another database keeps it from being dropped', async () => {
    const workspace = await makeWorkspace(database.prisma);
    const agent = await makeAgent(database.prisma, workspace.id);
    const role = engineRoleName(agent.id);
    // The server's admin database, which PUBLIC may connect to unless the operator revoked it.
    const admin = await database.connectClient({ admin: true });
    const { rows } = await admin.query<{ name: string }>('SELECT current_database() AS name');
    const elsewhere = new URL((await issueTestEngineCredentials(database, agent.id)).DATABASE_URL);
    elsewhere.pathname = `/${rows[0]?.name}`;
    const engine = await database.connectClient({ url: elsewhere.toString() });
    await engine.query(`SELECT lo_from_bytea(0, 'x')`);
    await engine.end();
    try {
      await dropEngineRole(database.prisma, agent.id);
      const [row] = await database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
        `SELECT rolcanlogin, rolconnlimit, pg_has_role(rolname, 'agentplane_engine', 'MEMBER') AS grouped
         FROM pg_roles WHERE rolname = $1`,
        role,
      );
      expect(row).toEqual({ rolcanlogin: false, rolconnlimit: 0, grouped: false });
      expect(await errorCodeOf(database.connectClient({ url: elsewhere.toString() }))).toBeDefined();
    } finally {
      await admin.query(`DROP OWNED BY "${role}"`);
      await admin.query(`DROP ROLE "${role}"`);
    }
  });

  it('rotating the password shuts the old one out at once', async () => {
    const workspace = await makeWorkspace(database.prisma);
    const agent = await makeAgent(database.prisma, workspace.id);
    const before = await issueTestEngineCredentials(database, agent.id);
    await rotateEngineRolePassword(database.prisma, agent.id);
    expect(await errorCodeOf(database.connectClient({ url: before.DATABASE_URL }))).toBe(INVALID_PASSWORD);
  });
});
