import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';
import { statementNamesBySql } from './prepared/statement-names.js';

export type Db = PrismaClient & {
  /**
   * One SQL statement straight on Prisma's own pool, prepared by name as Prisma's statements are, but
   * without Prisma's per-query work. For the reads every request makes; everything else goes through Prisma.
   */
  readonly sql: <Row>(text: string, values: readonly unknown[]) => Promise<Row[]>;
};
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type Tx = Prisma.TransactionClient;
/** Either client, for SQL that runs inside a transaction or outside one. */
export type SqlRunner = Pick<Db | Tx, '$executeRawUnsafe' | '$queryRawUnsafe'>;

export type CreatePrismaOptions = {
  /** Pool size; the pg default (10) suits a service, tests and CLIs want fewer. */
  maxConnections?: number;
  /**
   * Prepared statements are kept per connection (the default). A pooler that hands a session's
   * statements to another client (PgBouncer in transaction mode before 1.21) needs them off.
   */
  preparedStatements?: boolean;
  /**
   * Hears the errors of idle connections (the server restarted, failed over, or timed one out). pg
   * drops such a connection and the next query opens another, so this is news, not a failure.
   * Defaults to a line on stderr.
   */
  onPoolError?: (error: Error) => void;
};

const warnOnStderr = (error: Error) => {
  process.stderr.write(`database: an idle connection failed and was dropped: ${error.message}\n`);
};

// A transaction's client forwards unknown properties to the base client, `sql` included, so only
// identity tells the two apart.
const baseClients = new WeakSet<object>();

export function createPrisma(databaseUrl: string, options: CreatePrismaOptions = {}): Db {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.maxConnections ?? 10 });
  // Unheard, the 'error' event of an idle connection would end the process; silenced, an outage
  // would leave no trace in the log.
  pool.on('error', options.onPoolError ?? warnOnStderr);
  const statementName = statementNamesBySql(options.preparedStatements === false ? 0 : undefined);
  const client = new PrismaClient({
    adapter: new PrismaPg(pool, { statementNameGenerator: statementName }),
  });
  const disconnectPrisma = client.$disconnect.bind(client);
  baseClients.add(client);
  return Object.assign(client, {
    sql: async <Row>(text: string, values: readonly unknown[]) =>
      (await pool.query({ name: statementName({ sql: text }), text, values: [...values] })).rows as Row[],
    // The pool is ours, so it is ours to end, whether or not Prisma ever connected through it.
    $disconnect: async () => {
      await disconnectPrisma();
      if (!pool.ended) await pool.end();
    },
  });
}

/**
 * Runs SQL with `db.sql` outside a transaction and through the transaction's own connection inside
 * one, so that code shared by both paths reads what its transaction sees.
 */
export function querySql<Row>(db: Db | Tx, text: string, values: readonly unknown[]): Promise<Row[]> {
  return baseClients.has(db) ? (db as Db).sql<Row>(text, values) : db.$queryRawUnsafe<Row[]>(text, ...values);
}
