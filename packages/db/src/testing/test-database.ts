import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPrisma, type Db } from '../client.js';
import { quoteIdentifier, withDatabase } from '../embedded/database-admin.js';
import { ENGINE_GROUP_ROLE, POOL_ROLE_PATTERN } from '../engine-roles/engine-role-names.js';

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
  /**
   * A pool on this database that drop() ends, or with `url` as the user that URL names (an engine
   * role); idle-connection errors are heard, never thrown.
   */
  createPool: (options?: { max?: number; url?: string }) => pg.Pool;
  /**
   * A connected client that drop() ends: on this database, or with `admin` on the server's admin
   * database (for ALTER DATABASE and pg_terminate_backend aimed at this one), or with `url` as the
   * user that URL names (an engine role).
   */
  connectClient: (options?: { admin?: boolean; url?: string }) => Promise<pg.Client>;
  /** Ends everything handed out, waits until no backend is left on the database, then drops it. */
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

// An idle client whose backend is terminated (a database dropped WITH (FORCE), a restart) emits
// 'error'; unheard, that would end the test process.
const ignoreIdleError = () => {};

export async function withAdminClient<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', ignoreIdleError);
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
  const handedOut = new Set<pg.Pool | pg.Client>();
  return {
    name,
    url,
    prisma,
    createPool: ({ max = 10, url: asUser } = {}) => {
      const pool = new pg.Pool({ connectionString: asUser ?? url, max });
      pool.on('error', ignoreIdleError);
      handedOut.add(pool);
      return pool;
    },
    connectClient: async ({ admin = false, url: asUser } = {}) => {
      const client = new pg.Client({ connectionString: asUser ?? (admin ? adminUrl : url) });
      client.on('error', ignoreIdleError);
      handedOut.add(client);
      await client.connect();
      return client;
    },
    drop: async () => {
      await Promise.allSettled([prisma.$disconnect(), ...[...handedOut].map(endQuietly)]);
      handedOut.clear();
      await waitForNoBackends(adminUrl, name);
      const roles = await engineRolesOf(adminUrl, name);
      await dropDatabase(adminUrl, name);
      await dropRoles(adminUrl, roles);
    },
  };
}

// A test may have ended it already, or its server connection may be gone.
const endQuietly = (handle: pg.Pool | pg.Client) => handle.end().catch(ignoreIdleError);

/**
 * end() resolves when our side of each socket has closed, which can be before the server's backend has
 * read the Terminate message. Dropping WITH (FORCE) then would terminate a live backend (57P01) that a
 * client still listens on. The bound is for processes a suite started and failed to stop: FORCE ends those.
 */
async function waitForNoBackends(adminUrl: string, name: string, timeoutMs = 10_000): Promise<void> {
  await withAdminClient(adminUrl, async (client) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await client.query<{ count: string }>(
        'SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      if (rows[0]?.count === '0' || Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
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

/**
 * Engine roles are cluster-wide, so a suite's roles outlive its database unless dropped with it. Each
 * was provisioned with its checkpoint schema in the database, whose name gives the role's.
 */
async function engineRolesOf(adminUrl: string, name: string): Promise<string[]> {
  return withAdminClient(withDatabase(adminUrl, name), async (client) => {
    const { rows } = await client.query<{ nspname: string }>(
      "SELECT nspname FROM pg_namespace WHERE nspname ~ '^langgraph_[0-9a-f]{32}$'",
    );
    // Pool roles are cluster-wide; a suite's (named for it alone) were granted CONNECT on its database.
    const pools = await client.query<{ rolname: string }>(
      `SELECT r.rolname FROM pg_database d, aclexplode(d.datacl) acl JOIN pg_roles r ON r.oid = acl.grantee
       WHERE d.datname = current_database() AND acl.privilege_type = 'CONNECT' AND r.rolname ~ $1`,
      [POOL_ROLE_PATTERN],
    );
    return [
      ...rows.map((row) => `${ENGINE_GROUP_ROLE}_${row.nspname.slice('langgraph_'.length)}`),
      ...pools.rows.map((row) => row.rolname),
    ];
  });
}

/** Once their database is gone the roles hold no grants, so they drop without revoking anything. */
async function dropRoles(adminUrl: string, roles: string[]): Promise<void> {
  if (roles.length === 0) return;
  await withAdminClient(adminUrl, async (client) => {
    for (const role of roles) await client.query(`DROP ROLE IF EXISTS ${quoteIdentifier(role)}`);
  });
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
