import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPrisma, type Db } from '../client.js';
import { makeWorkspace } from '../testing/factories.js';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.js';
import { statementNamesBySql } from './statement-names.js';

describe('statementNamesBySql', () => {
  it('gives one SQL text one name, and different texts different names', () => {
    const nameOf = statementNamesBySql();
    const first = nameOf({ sql: 'SELECT 1' });
    expect(first).toMatch(/^ap_[\w-]{22}$/);
    expect(nameOf({ sql: 'SELECT 1' })).toBe(first);
    expect(nameOf({ sql: 'SELECT 2' })).not.toBe(first);
  });

  it('leaves texts past the limit unnamed, and keeps naming the ones it knows', () => {
    const nameOf = statementNamesBySql(2);
    const known = nameOf({ sql: 'SELECT 1' });
    nameOf({ sql: 'SELECT 2' });
    expect(nameOf({ sql: 'SELECT 3' })).toBe('');
    expect(nameOf({ sql: 'SELECT 1' })).toBe(known);
  });
});

describe('createPrisma prepared statements', () => {
  let database: TestDatabase;
  const clients: Db[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.$disconnect()));
    await database.drop();
  });

  // One connection, so the statements listed are the ones this client's queries left on it.
  const preparedOn = async (preparedStatements: boolean) => {
    const db = createPrisma(database.url, { maxConnections: 1, preparedStatements });
    clients.push(db);
    const [a, b] = [await makeWorkspace(database.prisma), await makeWorkspace(database.prisma)];
    const read = (id: string) => db.workspace.findUnique({ where: { id }, select: { id: true } });
    // The second call reuses the first one's statement with other parameters, and must see its own row.
    expect(await read(a.id)).toEqual({ id: a.id });
    expect(await read(b.id)).toEqual({ id: b.id });
    const rows = await db.$queryRaw<{ name: string; statement: string }[]>`
      SELECT name, statement FROM pg_prepared_statements`;
    return rows;
  };

  it('prepares each query once per connection by default', async () => {
    const statements = await preparedOn(true);
    const workspaceReads = statements.filter((row) => row.statement.includes('"workspaces"'));
    expect(workspaceReads).toHaveLength(1);
    expect(workspaceReads[0]?.name).toMatch(/^ap_/);
  });

  it('prepares nothing when turned off', async () => {
    expect(await preparedOn(false)).toEqual([]);
  });
});
