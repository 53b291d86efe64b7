import pg from 'pg';
import type { SqlRunner } from '../client.js';
import {
  defaultMigrationsDir,
  MigrationChecksumError,
  type MigrationFile,
  readMigrationFiles,
} from './migration-files.js';

// One fixed key serialises every runner on a database, so replicas starting together apply each
// migration exactly once: the second waits for the lock, then finds nothing pending.
const MIGRATION_LOCK_KEY = 7_245_113_001;

const CREATE_HISTORY_TABLE = `
  CREATE TABLE IF NOT EXISTS schema_migrations (
    name       TEXT PRIMARY KEY,
    checksum   TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
  )`;

export type MigrateOptions = {
  databaseUrl: string;
  migrationsDir?: string;
  log?: (message: string) => void;
};

export type MigrationStatus = {
  applied: string[];
  pending: string[];
};

type AppliedRow = { name: string; checksum: string };

export async function migrate(options: MigrateOptions): Promise<{ applied: string[] }> {
  const files = await readMigrationFiles(options.migrationsDir ?? defaultMigrationsDir());
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(CREATE_HISTORY_TABLE);
    const pending = selectPending(files, await readApplied(client));
    for (const migration of pending) {
      options.log?.(`applying migration ${migration.name}`);
      await applyOne(client, migration);
    }
    return { applied: pending.map((migration) => migration.name) };
  } finally {
    // Ending the session releases the advisory lock even when the unlock itself cannot run.
    await client.end();
  }
}

/**
 * What readiness checks: which migration files the database has not applied yet. Through the caller's
 * client (a service's pool), so that a probe opens no connection of its own.
 */
export async function readMigrationStatus(
  db: SqlRunner,
  migrationsDir = defaultMigrationsDir(),
): Promise<MigrationStatus> {
  const files = await readMigrationFiles(migrationsDir);
  const [exists] = await db.$queryRawUnsafe<{ present: boolean }[]>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  const applied = exists?.present ? await db.$queryRawUnsafe<AppliedRow[]>(SELECT_APPLIED) : [];
  const pending = selectPending(files, applied).map((migration) => migration.name);
  return { applied: applied.map((row) => row.name), pending };
}

const SELECT_APPLIED = 'SELECT name, checksum FROM schema_migrations ORDER BY name';

async function readApplied(client: pg.Client): Promise<AppliedRow[]> {
  const result = await client.query<AppliedRow>(SELECT_APPLIED);
  return result.rows;
}

function selectPending(files: MigrationFile[], applied: AppliedRow[]): MigrationFile[] {
  const appliedChecksums = new Map(applied.map((row) => [row.name, row.checksum]));
  for (const file of files) {
    const checksum = appliedChecksums.get(file.name);
    if (checksum !== undefined && checksum !== file.checksum) {
      throw new MigrationChecksumError(file.name);
    }
  }
  return files.filter((file) => !appliedChecksums.has(file.name));
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [
      migration.name,
      migration.checksum,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
