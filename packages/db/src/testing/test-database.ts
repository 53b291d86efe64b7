import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPrisma, type Db } from '../client.js';
import { quoteIdentifier, withDatabase } from '../embedded/database-admin.js';

/** Set by the jest global setup; read by every suite in the run. */
export const ADMIN_URL_ENV = 'AGENTPLANE_TEST_ADMIN_URL';
export const TEMPLATE_ENV = 'AGENTPLANE_TEST_TEMPLATE';

const TEST_DATABASE_PREFIX = 'agentplane_test_';
export const TEMPLATE_PREFIX = 'agentplane_tpl_';
// A run that crashed leaves its databases behind; the next run drops those older than this.
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;
const OBJECT_IN_USE = '55006';

export type TestDatabase = {
  name: string;
  url: string;
  prisma: Db;
  drop: () => Promise<void>;
};

export type CreateTestDatabaseOptions = {
  /** false gives an empty database, for tests of the migration runner itself. */
  migrated?: boolean;
};

export function uniqueDatabaseName(prefix: string): string {
  return `${prefix}${Date.now()}_${randomBytes(4).toString('hex')}`;
}

export function requireTestEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: run the suite through jest with the database preset (jestConfig({ database: true })).`,
    );
  }
  return value;
}

export async function withAdminClient<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A database of its own for one suite, copied from the migrated template of this run. */
export async function createTestDatabase(options: CreateTestDatabaseOptions = {}): Promise<TestDatabase> {
  const adminUrl = requireTestEnv(ADMIN_URL_ENV);
  const name = uniqueDatabaseName(TEST_DATABASE_PREFIX);
  const template = options.migrated === false ? 'template0' : requireTestEnv(TEMPLATE_ENV);
  await withAdminClient(adminUrl, (client) => createFromTemplate(client, name, template));
  const url = withDatabase(adminUrl, name);
  const prisma = createPrisma(url, { maxConnections: 5 });
  return {
    name,
    url,
    prisma,
    drop: async () => {
      await prisma.$disconnect();
      await dropDatabase(adminUrl, name);
    },
  };
}

async function createFromTemplate(client: pg.Client, name: string, template: string): Promise<void> {
  // Copies of one template started together can briefly see each other as users of it.
  for (let attempt = 1; ; attempt++) {
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(template)}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || attempt === 20) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdminClient(adminUrl, (client) =>
    client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`),
  );
}

export async function dropStaleTestDatabases(adminUrl: string): Promise<void> {
  const names = await withAdminClient(adminUrl, async (client) => {
    const result = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname LIKE $2',
      [`${TEST_DATABASE_PREFIX}%`, `${TEMPLATE_PREFIX}%`],
    );
    return result.rows.map((row) => row.datname);
  });
  const cutoff = Date.now() - STALE_AFTER_MS;
  for (const name of names) {
    const createdAt = Number(name.split('_')[2]);
    if (Number.isFinite(createdAt) && createdAt < cutoff) await dropDatabase(adminUrl, name);
  }
}
