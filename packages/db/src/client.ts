import { PrismaPg } from '@prisma/adapter-pg';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';
import { statementNamesBySql } from './prepared/statement-names.js';

export type Db = PrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type Tx = Prisma.TransactionClient;

export type CreatePrismaOptions = {
  /** Pool size; the pg default (10) suits a service, tests and CLIs want fewer. */
  maxConnections?: number;
  /**
   * Prepared statements are kept per connection (the default). A pooler that hands a session's
   * statements to another client (PgBouncer in transaction mode before 1.21) needs them off.
   */
  preparedStatements?: boolean;
};

export function createPrisma(databaseUrl: string, options: CreatePrismaOptions = {}): Db {
  const adapter = new PrismaPg(
    { connectionString: databaseUrl, max: options.maxConnections ?? 10 },
    options.preparedStatements === false ? {} : { statementNameGenerator: statementNamesBySql() },
  );
  return new PrismaClient({ adapter });
}
