import pg from 'pg';
import type { SqlRunner } from '../client.js';
import {
  defaultMigrationsDir,
  MigrationChecksumError,
  type MigrationFile,
  readMigrationFiles,
} from './migration-files.js';

// Runners serialise on a lock of the history table, taken in each migration's transaction: the second
// of two replicas starting together waits, then finds nothing pending. Not an advisory lock, which any
// role may take (an engine's too) and hold to stop every upgrade: no role but its owner's has a
// privilege on this table, and LOCK TABLE needs one. SHARE ROW EXCLUSIVE conflicts with itself, not
// with the readers of readiness probes.
const LOCK_HISTORY_TABLE = 'LOCK TABLE schema_migrations IN SHARE ROW EXCLUSIVE MODE';

// Two runners on a fresh database may both create it; the loser's error says the winner did.
const ALREADY_CREATED = new Set(['23505', '42P07', '42710']);

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
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(CREATE_HISTORY_TABLE).catch((error: unknown) => {
      if (!ALREADY_CREATED.has((error as { code?: string }).code ?? '')) throw error;
    });
    const applied: string[] = [];
    for (;;) {
      const name = await applyNextPending(client, files, options.log);
      if (name === undefined) return { applied };
      applied.push(name);
    }
  } finally {
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

/** Applies the first migration still pending under the lock, in one transaction; returns its name. */
async function applyNextPending(
  client: pg.Client,
  files: MigrationFile[],
  log: MigrateOptions['log'],
): Promise<string | undefined> {
  await client.query('BEGIN');
  try {
    await client.query(LOCK_HISTORY_TABLE);
    const [migration] = selectPending(files, await readApplied(client));
    if (migration !== undefined) {
      log?.(`applying migration ${migration.name}`);
      await applyOne(client, migration);
    }
    await client.query('COMMIT');
    return migration?.name;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  try {
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [
      migration.name,
      migration.checksum,
    ]);
  } catch (error) {
    throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
