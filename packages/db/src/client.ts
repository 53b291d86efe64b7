import { PrismaPg } from '@prisma/adapter-pg';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';

export type Db = PrismaClient;
/** The client handed to code running inside `db.$transaction(async (tx) => …)`. */
export type Tx = Prisma.TransactionClient;

export type CreatePrismaOptions = {
  /** Pool size; the pg default (10) suits a service, tests and CLIs want fewer. */
  maxConnections?: number;
};

export function createPrisma(databaseUrl: string, options: CreatePrismaOptions = {}): Db {
  const adapter = new PrismaPg({
    connectionString: databaseUrl,
    max: options.maxConnections ?? 10,
  });
  return new PrismaClient({ adapter });
}
