import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isRetryableTransactionError } from './errors.js';
import { createTestDatabase, type TestDatabase } from './testing/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

// PL/pgSQL raises any SQLSTATE with any message, so each case is the real error each layer builds.
const raise = (sqlState: string, message: string) =>
  `DO $$ BEGIN RAISE EXCEPTION '${message}' USING ERRCODE = '${sqlState}'; END $$`;
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the statement to fail');
    },
    (error: unknown) => error,
  );

describe('isRetryableTransactionError', () => {
  it.each([
    ['a serialization failure', '40001'],
    ['a deadlock', '40P01'],
  ])('retries %s raised in a raw query through Prisma', async (_what, sqlState) => {
    const error = await failureOf(database.prisma.$executeRawUnsafe(raise(sqlState, 'raised')));
    expect(isRetryableTransactionError(error)).toBe(true);
  });

  it('retries a deadlock raised through the pool by db.sql', async () => {
    const error = await failureOf(database.prisma.sql(raise('40P01', 'raised'), []));
    expect(isRetryableTransactionError(error)).toBe(true);
  });

  it('does not retry an error whose message only mentions a deadlock or a retryable code', async () => {
    const text = 'deadlock detected: could not serialize access (40P01, 40001)';
    const errors = [
      await failureOf(database.prisma.$executeRawUnsafe(raise('P0001', text))),
      await failureOf(database.prisma.sql(raise('P0001', text), [])),
      new Error(text),
    ];
    expect(errors.map(isRetryableTransactionError)).toEqual([false, false, false]);
  });

  it('does not retry what is not an error', () => {
    expect([undefined, null, '40P01', { code: 40001 }].map(isRetryableTransactionError)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
