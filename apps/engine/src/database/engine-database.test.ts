// The engine's database: a connection lost while an agent holds it (the server restarting, its backend
// terminated) fails that agent's statement, and the process goes on with new connections.
import { engineRoleName } from '@agentplane/db/engine-roles';
import {
  createTestDatabase,
  issueTestEngineCredentials,
  makeAgent,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EngineDatabase, openEngineDatabase } from './engine-database.js';

let database: TestDatabase;
let engineDb: EngineDatabase;
let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  const credentials = await issueTestEngineCredentials(database, agentId);
  engineDb = openEngineDatabase({
    url: credentials.DATABASE_URL,
    maxConnections: 2,
    sharded: false,
    loginRole: engineRoleName(agentId),
    logger: createLogger({ name: 'engine-database-test', level: 'silent' }),
  });
});

afterAll(async () => {
  await engineDb?.end();
  await database?.drop();
});

describe("the engine's database", () => {
  it('survives a connection terminated while an agent holds it, and serves the next statement', async () => {
    const agentDb = engineDb.forAgent(agentId);
    const held = await agentDb.connect();
    const { rows } = await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const pid = rows[0]?.pid;
    await database.prisma.$queryRawUnsafe(`SELECT pg_terminate_backend(${Number(pid)})`);
    // The server's message reaches the held connection as an 'error' event, with no statement running.
    await waitUntil(
      async () =>
        Number(
          (
            await database.prisma.$queryRawUnsafe<{ n: bigint }[]>(
              `SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ${Number(pid)}`,
            )
          )[0]?.n,
        ) === 0,
      { what: 'the backend to be gone' },
    );
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release(true);
    const again = await agentDb.query<{ user: string }>('SELECT current_user AS user');
    expect(again.rows).toEqual([{ user: engineRoleName(agentId) }]);
  });

  it("plans an agent's named statements generically from their first run", async () => {
    const { rows } = await engineDb.forAgent(agentId).query<{ plan_cache_mode: string }>('SHOW plan_cache_mode');
    expect(rows).toEqual([{ plan_cache_mode: 'force_generic_plan' }]);
  });
});
