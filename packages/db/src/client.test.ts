import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPrisma, type Db, querySql } from './client.js';
import { makeWorkspace } from './testing/factories.js';
import { createTestDatabase, type TestDatabase } from './testing/test-database.js';

let database: TestDatabase;
const clients: Db[] = [];
const client = (options: Parameters<typeof createPrisma>[1]) => {
  const db = createPrisma(database.url, options);
  clients.push(db);
  return db;
};
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(clients.map((db) => db.$disconnect()));
  await database?.drop();
});

type PreparedRow = { name: string; statement: string };
const listPrepared = (db: Db) => db.sql<PreparedRow>('SELECT name, statement FROM pg_prepared_statements', []);

describe('createPrisma prepared statements', () => {
  // One connection, so the statements listed are the ones this client's queries left on it.
  const preparedAfterTwoReads = async (preparedStatements: boolean) => {
    const db = client({ maxConnections: 1, preparedStatements });
    const [a, b] = [await makeWorkspace(database.prisma), await makeWorkspace(database.prisma)];
    const read = (id: string) => db.workspace.findUnique({ where: { id }, select: { id: true } });
    // The second call reuses the first one's statement with other parameters, and must see its own row.
    expect(await read(a.id)).toEqual({ id: a.id });
    expect(await read(b.id)).toEqual({ id: b.id });
    return listPrepared(db);
  };

  it('prepares each Prisma query once per connection by default', async () => {
    const statements = await preparedAfterTwoReads(true);
    const workspaceReads = statements.filter((row) => row.statement.includes('"workspaces"'));
    expect(workspaceReads).toHaveLength(1);
    expect(workspaceReads[0]?.name).toMatch(/^ap_/);
  });

  it('prepares nothing when turned off', async () => {
    expect(await preparedAfterTwoReads(false)).toEqual([]);
  });
});

describe('db.sql', () => {
  it('returns typed rows through a prepared statement on the same pool', async () => {
    const db = client({ maxConnections: 1 });
    const workspace = await makeWorkspace(database.prisma);
    const text = 'SELECT id, name, created_at, json_build_object($2::text, 1) AS extra FROM workspaces WHERE id = $1';
    const rows = await db.sql<{ id: string; name: string; created_at: Date; extra: unknown }>(text, [
      workspace.id,
      'k',
    ]);
    expect(rows).toEqual([{ id: workspace.id, name: workspace.name, created_at: expect.any(Date), extra: { k: 1 } }]);
    expect((await listPrepared(db)).map((row) => row.statement)).toContain(text);
  });

  it('reports the idle connection the server ended, instead of swallowing it, and reconnects', async () => {
    const heard: Error[] = [];
    const db = client({ maxConnections: 1, onPoolError: (error) => heard.push(error) });
    const backend = async () => (await db.sql<{ pid: number }>('SELECT pg_backend_pid() AS pid', []))[0]?.pid;
    const first = await backend();
    await database.prisma.$queryRaw`SELECT pg_terminate_backend(${first}::int)`;
    // pg reports the error after it has taken the dead connection out of the pool: from then on, the
    // next query cannot be handed that connection (the backend being gone is not enough: the notice
    // may still be unread in the socket).
    await waitUntil(() => heard.length > 0, { what: 'the pool to report the ended connection' });
    expect(heard[0]?.message).toMatch(/terminat/i);
    const second = await backend();
    expect(second).toEqual(expect.any(Number));
    expect(second).not.toBe(first);
  });

  it('is ended with the client, even when Prisma itself never connected', async () => {
    const db = createPrisma(database.url, { maxConnections: 1 });
    await db.sql('SELECT 1', []);
    await db.$disconnect();
    await expect(db.sql('SELECT 1', [])).rejects.toThrow(/after calling end/);
  });
});

describe('querySql', () => {
  it('reads inside a transaction what the transaction wrote, and outside it only what is committed', async () => {
    const db = client({ maxConnections: 2 });
    const id = crypto.randomUUID();
    const find = 'SELECT id FROM workspaces WHERE id = $1::uuid';
    const seen = await db.$transaction(async (tx) => {
      await tx.workspace.create({ data: { id, name: 'uncommitted' } });
      return { inside: await querySql(tx, find, [id]), outside: await querySql(db, find, [id]) };
    });
    expect(seen).toEqual({ inside: [{ id }], outside: [] });
    expect(await querySql(db, find, [id])).toEqual([{ id }]);
  });
});
