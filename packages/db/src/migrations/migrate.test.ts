import { spawn } from 'node:child_process';
import { appendFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { issueTestEngineCredentials } from '../testing/engine-credentials.js';
import { makeAgent, makeWorkspace } from '../testing/factories.js';
import { ScratchDirs } from '../testing/scratch-dirs.js';
import { createTestDatabase, type TestDatabase } from '../testing/test-database.js';
import { migrate, readMigrationStatus } from './migrate.js';
import { defaultMigrationsDir, MigrationChecksumError } from './migration-files.js';

const CLI = fileURLToPath(new URL('../../dist/migrations/cli.js', import.meta.url));

let databases: TestDatabase[] = [];
afterEach(async () => {
  await Promise.all(databases.map((database) => database.drop()));
  databases = [];
});

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrated: false });
  databases.push(database);
  return database;
}

async function query<T extends pg.QueryResultRow>(database: TestDatabase, sql: string): Promise<T[]> {
  const client = await database.connectClient();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const scratch = new ScratchDirs();
afterAll(() => scratch.removeAll());

async function migrationsDirWith(files: Record<string, string>): Promise<string> {
  const dir = await scratch.make('agentplane-migrations-');
  for (const [name, sql] of Object.entries(files)) {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

const projectMigrations = async () =>
  (await readdir(defaultMigrationsDir(), { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

describe('migrate', () => {
  it('applies every project migration to a fresh database and records name and checksum', async () => {
    const database = await emptyDatabase();
    const { applied } = await migrate({ databaseUrl: database.url });
    expect(applied).toEqual(await projectMigrations());
    const rows = await query<{ name: string; checksum: string }>(
      database,
      'SELECT name, checksum FROM schema_migrations ORDER BY name',
    );
    expect(rows.map((row) => row.name)).toEqual(applied);
    for (const row of rows) expect(row.checksum).toMatch(/^[0-9a-f]{64}$/);
    const tables = await query<{ table_name: string }>(
      database,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables.map((table) => table.table_name)).toEqual(
      expect.arrayContaining(['workspaces', 'agents', 'engine_configs', 'agent_integrations']),
    );
  });

  it('does nothing on a second run', async () => {
    const database = await emptyDatabase();
    await migrate({ databaseUrl: database.url });
    const before = await query(database, 'SELECT name, applied_at FROM schema_migrations');
    expect(await migrate({ databaseUrl: database.url })).toEqual({ applied: [] });
    expect(await query(database, 'SELECT name, applied_at FROM schema_migrations')).toEqual(before);
  });

  it('applies migrations in name order and only the new ones on a later run', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsDirWith({
      '20260101000000_first': 'CREATE TABLE log (step text);',
      '20260101000001_second': "INSERT INTO log VALUES ('second');",
    });
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await mkdir(path.join(dir, '20260101000002_third'));
    await writeFile(path.join(dir, '20260101000002_third', 'migration.sql'), "INSERT INTO log VALUES ('third');");
    expect(await migrate({ databaseUrl: database.url, migrationsDir: dir })).toEqual({
      applied: ['20260101000002_third'],
    });
    expect(await query(database, 'SELECT step FROM log')).toEqual([{ step: 'second' }, { step: 'third' }]);
  });

  it('refuses to run when an applied migration file was changed, naming the file', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsDirWith({ '20260101000000_first': 'CREATE TABLE a (id int);' });
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await appendFile(path.join(dir, '20260101000000_first', 'migration.sql'), '\nCREATE TABLE b (id int);');
    await mkdir(path.join(dir, '20260101000001_second'));
    await writeFile(path.join(dir, '20260101000001_second', 'migration.sql'), 'CREATE TABLE c (id int);');

    const run = migrate({ databaseUrl: database.url, migrationsDir: dir });
    await expect(run).rejects.toBeInstanceOf(MigrationChecksumError);
    await expect(run).rejects.toThrow('20260101000000_first/migration.sql was changed');
    // Nothing after the changed file ran either.
    expect(await query(database, "SELECT to_regclass('c') AS c")).toEqual([{ c: null }]);
  });

  it('rolls a failing migration back whole and reports its name', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsDirWith({
      '20260101000000_broken': 'CREATE TABLE half (id int);\nSELECT no_such_function();',
    });
    await expect(migrate({ databaseUrl: database.url, migrationsDir: dir })).rejects.toThrow(
      'Migration 20260101000000_broken failed',
    );
    expect(await query(database, "SELECT to_regclass('half') AS half")).toEqual([{ half: null }]);
    expect(await query(database, 'SELECT name FROM schema_migrations')).toEqual([]);
  });

  it('applies the schema exactly once when two runners start at once', async () => {
    const database = await emptyDatabase();
    // The slow first migration keeps the lock held while the second runner arrives.
    const dir = await migrationsDirWith({
      '20260101000000_slow': 'SELECT pg_sleep(0.3); CREATE TABLE runs (n int);',
      '20260101000001_count': 'INSERT INTO runs VALUES (1);',
    });
    const results = await Promise.all([
      migrate({ databaseUrl: database.url, migrationsDir: dir }),
      migrate({ databaseUrl: database.url, migrationsDir: dir }),
    ]);
    // Each migration by one of them: whichever holds the lock takes the next one pending.
    expect(results.flatMap((result) => result.applied).sort()).toEqual(['20260101000000_slow', '20260101000001_count']);
    expect(await query(database, 'SELECT count(*)::int AS n FROM runs')).toEqual([{ n: 1 }]);
  });

  it('applies the schema exactly once when two CLI processes start at once', async () => {
    const database = await emptyDatabase();
    const dir = await migrationsDirWith({
      '20260101000000_slow': 'SELECT pg_sleep(0.3); CREATE TABLE runs (n int);',
      '20260101000001_count': 'INSERT INTO runs VALUES (1);',
    });
    const runCli = () =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI], {
          env: { ...process.env, DATABASE_URL: database.url, MIGRATIONS_DIR: dir },
        });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('close', (code) => resolve({ code, output }));
      });
    const [first, second] = await Promise.all([runCli(), runCli()]);
    expect([first.code, second.code]).toEqual([0, 0]);
    const output = [first.output, second.output].join('\n');
    for (const name of ['20260101000000_slow', '20260101000001_count']) {
      expect(output.split(`applying migration ${name}`)).toHaveLength(2);
    }
    expect(await query(database, 'SELECT count(*)::int AS n FROM runs')).toEqual([{ n: 1 }]);
  });
});

describe('an engine role', () => {
  it('cannot hold up a migration, by the key runners once took or by a lock of the history table', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const agent = await makeAgent(database.prisma, (await makeWorkspace(database.prisma)).id);
    const { DATABASE_URL } = await issueTestEngineCredentials(database, agent.id);
    const engine = await database.connectClient({ url: DATABASE_URL });
    expect((await engine.query('SELECT pg_try_advisory_lock(7245113001) AS held')).rows).toEqual([{ held: true }]);
    await engine.query('BEGIN');
    const denied = await engine.query('LOCK TABLE schema_migrations IN ACCESS SHARE MODE').then(
      () => undefined,
      (error: { code?: string }) => error.code,
    );
    expect(denied).toBe('42501');
    await engine.query('ROLLBACK');

    const dir = await migrationsDirWith({ '20990101000000_later': 'CREATE TABLE later (n int);' });
    expect(await migrate({ databaseUrl: database.url, migrationsDir: dir })).toEqual({
      applied: ['20990101000000_later'],
    });
  });
});

describe('readMigrationStatus', () => {
  it('lists pending migrations until they are applied', async () => {
    const database = await emptyDatabase();
    const dir = defaultMigrationsDir();
    expect(await readMigrationStatus(database.prisma, dir)).toEqual({
      applied: [],
      pending: await projectMigrations(),
    });
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    expect(await readMigrationStatus(database.prisma, dir)).toEqual({
      applied: await projectMigrations(),
      pending: [],
    });
  });
});
