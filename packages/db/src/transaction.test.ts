import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { makeWorkspace } from './testing/factories.js';
import { createTestDatabase, type TestDatabase } from './testing/test-database.js';
import { inTransaction } from './transaction.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

describe('inTransaction', () => {
  it('retries the transaction PostgreSQL aborts to break a deadlock, so both writers succeed', async () => {
    const [a, b] = await Promise.all([makeWorkspace(database.prisma), makeWorkspace(database.prisma)]);
    let attempts = 0;
    // Each transaction locks one row, waits, then the other's row: a deadlock PostgreSQL must break.
    const crossing = (first: string, second: string) =>
      inTransaction(database.prisma, async (tx) => {
        attempts++;
        await tx.workspace.update({ where: { id: first }, data: { name: `locked by ${first}` } });
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx.workspace.update({ where: { id: second }, data: { name: `done by ${first}` } });
        return first;
      });
    await expect(Promise.all([crossing(a.id, b.id), crossing(b.id, a.id)])).resolves.toEqual([a.id, b.id]);
    expect(attempts).toBe(3);
  });

  it('does not retry an ordinary failure', async () => {
    let attempts = 0;
    await expect(
      inTransaction(database.prisma, async () => {
        attempts++;
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(attempts).toBe(1);
  });
});
