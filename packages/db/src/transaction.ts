import type { Db, Tx } from './client.js';
import { isRetryableTransactionError } from './errors.js';

const MAX_ATTEMPTS = 3;

/** Runs `work` in a transaction, again when PostgreSQL aborted it to break a deadlock. */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.$transaction(work, { timeout: 15_000, maxWait: 10_000 });
    } catch (error) {
      if (attempt >= MAX_ATTEMPTS || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    }
  }
}
