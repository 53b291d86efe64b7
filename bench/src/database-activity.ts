// What a process and the database do while nothing is asked of them: the cost of what polls.
import pg from 'pg';
import { cpuSeconds } from './engine-process.js';

/** Transactions the database has counted so far (PostgreSQL flushes a busy backend's counts every second). */
export async function countTransactions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>(
      'SELECT xact_commit + xact_rollback AS count FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]?.count);
  } finally {
    await client.end();
  }
}

export type IdleActivity = {
  /** The process's CPU, in percent of one core. */
  cpuPercent: number;
  /** The whole database's transactions per second. */
  transactionsPerSecond: number;
};

/** The CPU of process `pid` and the database's transactions over `ms` in which the caller asks nothing. */
export async function measureIdleActivity(pid: number, databaseUrl: string, ms: number): Promise<IdleActivity> {
  const before = {
    at: performance.now(),
    cpu: await cpuSeconds(pid),
    transactions: await countTransactions(databaseUrl),
  };
  await new Promise((resolve) => setTimeout(resolve, ms));
  const transactions = (await countTransactions(databaseUrl)) - before.transactions;
  const cpu = (await cpuSeconds(pid)) - before.cpu;
  const seconds = (performance.now() - before.at) / 1000;
  return { cpuPercent: (cpu / seconds) * 100, transactionsPerSecond: transactions / seconds };
}
