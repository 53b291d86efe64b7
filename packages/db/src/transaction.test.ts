import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { makeWorkspace } from './testing/factories.js';
import { createTestDatabase, type TestDatabase } from './testing/test-database.js';
import { inTransaction } from './transaction.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('inTransaction', () => {
  it('retries the transaction PostgreSQL aborts to break a deadlock, so both writers succeed', async () => {
    const [a, b] = await Promise.all([makeWorkspace(database.prisma), makeWorkspace(database.prisma)]);
    let attempts = 0;
    let firstLocks = 0;
    let bothLocked: () => void = () => {};
    const bothHoldTheirFirstRow = new Promise<void>((resolve) => (bothLocked = resolve));
    // Each transaction locks one row, waits until the other holds its own, then asks for the other's
    // row: a deadlock PostgreSQL must break, whatever the timing. The retry finds the barrier open.
    const crossing = (first: string, second: string) =>
      inTransaction(database.prisma, async (tx) => {
        attempts++;
        await tx.workspace.update({ where: { id: first }, data: { name: `locked by ${first}` } });
        if (++firstLocks === 2) bothLocked();
        await bothHoldTheirFirstRow;
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
