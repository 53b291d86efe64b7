import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findFreePort, quoteIdentifier, withDatabase } from '../embedded/database-admin.js';
import { startEmbeddedPostgres } from '../embedded/embedded-postgres.js';
import { migrate } from '../migrations/migrate.js';
import {
  ADMIN_URL_ENV,
  dropDatabase,
  dropStaleTestDatabases,
  TEMPLATE_ENV,
  TEMPLATE_PREFIX,
  uniqueDatabaseName,
  withAdminClient,
} from './test-database.js';

type RunState = { adminUrl: string; template: string; stopPostgres?: () => Promise<void> };
const RUN_STATE = Symbol.for('agentplane.test-database-run');

/**
 * Jest globalSetup: one PostgreSQL per test run (TEST_DATABASE_URL's server, or an embedded one),
 * and one migrated template database that every suite copies.
 */
export async function setUpTestDatabases(): Promise<void> {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stopPostgres: (() => Promise<void>) | undefined;
  if (!adminUrl) {
    const server = await startEmbeddedPostgresOnFreePort();
    adminUrl = server.url;
    stopPostgres = server.stop;
  } else {
    await dropStaleTestDatabases(adminUrl);
  }
  const template = uniqueDatabaseName(TEMPLATE_PREFIX);
  await withAdminClient(adminUrl, (client) => client.query(`CREATE DATABASE ${quoteIdentifier(template)}`));
  await migrate({ databaseUrl: withDatabase(adminUrl, template) });
  process.env[ADMIN_URL_ENV] = adminUrl;
  process.env[TEMPLATE_ENV] = template;
  const state: RunState = { adminUrl, template, ...(stopPostgres ? { stopPostgres } : {}) };
  (globalThis as Record<symbol, unknown>)[RUN_STATE] = state;
}

/**
 * PostgreSQL cannot listen on port 0 and say which port it got, so a free port is probed; another
 * process (a parallel package's run) may take it before PostgreSQL binds it, so a failed start retries.
 */
async function startEmbeddedPostgresOnFreePort(attempts = 3) {
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort();
    // Directly under tmp: as root the postgres OS user must be able to reach it.
    const dataDir = path.join(tmpdir(), `agentplane-test-pg-${process.pid}-${port}`);
    try {
      return await startEmbeddedPostgres({ dataDir, port, persistent: false });
    } catch (error) {
      await rm(dataDir, { recursive: true, force: true });
      if (attempt >= attempts) throw error;
    }
  }
}

export async function tearDownTestDatabases(): Promise<void> {
  const state = (globalThis as Record<symbol, unknown>)[RUN_STATE] as RunState | undefined;
  if (!state) return;
  await dropDatabase(state.adminUrl, state.template);
  await state.stopPostgres?.();
}

export default setUpTestDatabases;
