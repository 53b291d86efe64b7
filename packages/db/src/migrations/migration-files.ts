import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type MigrationFile = {
  /** The folder name, e.g. `20261122000000_init`; the order of migrations is the order of names. */
  name: string;
  sql: string;
  checksum: string;
};

const MIGRATION_FOLDER = /^\d{14}_[A-Za-z0-9_-]+$/;

/**
 * `MIGRATIONS_DIR` lets a deployment that ships the SQL elsewhere (the Docker images) point at it;
 * by default the repository's `prisma/migrations`, found from this file (src/ and dist/ sit at the same depth).
 */
export function defaultMigrationsDir(): string {
  return process.env.MIGRATIONS_DIR ?? fileURLToPath(new URL('../../../../prisma/migrations', import.meta.url));
}

export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory() && MIGRATION_FOLDER.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    }),
  );
}

export function checksumOf(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

export class MigrationChecksumError extends Error {
  constructor(readonly migrationName: string) {
    super(
      `Migration ${migrationName}/migration.sql was changed after it was applied (checksum mismatch). ` +
        'Applied migrations are immutable: restore the file and add a new migration instead.',
    );
    this.name = 'MigrationChecksumError';
  }
}
