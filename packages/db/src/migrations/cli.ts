#!/usr/bin/env node
// `pnpm db:migrate`: applies pending migrations to DATABASE_URL, or to the local embedded PostgreSQL when it is unset.
import { startLocalPostgres } from '../embedded/local-postgres.js';
import { migrate } from './migrate.js';

const log = (message: string) => console.log(`[migrate] ${message}`);

async function migrateAndReport(databaseUrl: string): Promise<void> {
  const { applied } = await migrate({ databaseUrl, log });
  log(applied.length === 0 ? 'database is up to date' : `applied ${applied.length} migration(s)`);
}

async function main(): Promise<void> {
  if (process.env.DATABASE_URL) return migrateAndReport(process.env.DATABASE_URL);
  const local = await startLocalPostgres();
  try {
    await migrateAndReport(local.databaseUrl);
  } finally {
    await local.stop();
  }
}

main().catch((error: unknown) => {
  console.error(`[migrate] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
