import { createServer, type Server } from 'node:http';
import { createPrisma, type Db } from '@agentplane/db';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { listenOnLoopback, waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import request from 'supertest';
import { createManagerApp } from '../app.js';
import { loadManagerConfig } from '../config.js';
import { countingSql } from '../testing/counting-sql.js';
import { TEST_SECRETS_KEY } from '../testing/manager-test-app.js';
import { checkReadiness, READINESS_REUSE_MS } from './readiness.js';

const logger = createLogger({ name: 'test', level: 'silent' });
const UNREACHABLE_URL = 'postgresql://nobody@127.0.0.1:1/none';

// The production bound (3 s) is for a database that drops packets; on a CI machine running suites side
// by side, a first check through a cold pool once took longer. The tests of the bound itself set theirs.
const READINESS_TIMEOUT_IN_TESTS_MS = 30_000;

function appFor(db: Db, now?: () => number) {
  const config = loadManagerConfig({ NODE_ENV: 'test', DATABASE_URL: UNREACHABLE_URL, SECRETS_KEY: TEST_SECRETS_KEY });
  return createManagerApp({
    config,
    db,
    logger,
    readinessTimeoutMs: READINESS_TIMEOUT_IN_TESTS_MS,
    ...(now ? { now } : {}),
  });
}

let migrated: TestDatabase;
let empty: TestDatabase;
let unreachable: Db;
beforeAll(async () => {
  [migrated, empty] = await Promise.all([createTestDatabase(), createTestDatabase({ migrated: false })]);
  unreachable = createPrisma(UNREACHABLE_URL);
});
afterAll(async () => {
  await Promise.all([migrated?.drop(), empty?.drop(), unreachable?.$disconnect()]);
});

describe('GET /api/v1/healthz', () => {
  it('answers 200 while the process lives, whatever the database says', async () => {
    const response = await request(appFor(unreachable)).get('/api/v1/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });
});

describe('GET /api/v1/readyz', () => {
  it('answers 200 when the database is reachable and fully migrated', async () => {
    const response = await request(appFor(migrated.prisma)).get('/api/v1/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ready' });
  });

  it('answers 503 naming the pending migrations', async () => {
    const response = await request(appFor(empty.prisma)).get('/api/v1/readyz');
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.detail).toMatch(/Migrations are pending: \d{14}_init/);
  });

  it('answers 503 when the database is unreachable', async () => {
    const response = await request(appFor(unreachable)).get('/api/v1/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ status: 503, detail: 'The database is unreachable.' });
    expect(response.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});

describe('readiness under a flood of probes', () => {
  const PROBES = 200;
  let server: Server | undefined;
  let locker: pg.Client | undefined;
  afterEach(async () => {
    await locker?.query('ROLLBACK');
    locker = undefined;
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  async function backendsOf(observer: pg.Client, except: number[]): Promise<number> {
    const { rows } = await observer.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND NOT (pid = ANY($2::int[]))',
      [migrated.name, except],
    );
    return rows[0]?.count ?? 0;
  }

  it('shares one check through the pool: 200 concurrent probes open at most one connection and run one check', async () => {
    let clock = 1_000_000;
    const { db, counter } = countingSql(migrated.prisma, ['sql', '$queryRawUnsafe', '$executeRawUnsafe']);
    const app = appFor(db, () => clock);
    const received = { requests: 0 };
    server = createServer(app).on('request', () => received.requests++);
    const { port } = await listenOnLoopback(server);

    // The check blocks on this lock, so every probe arrives while it is still running.
    locker = await migrated.connectClient();
    const observer = await migrated.connectClient();
    const ownPids = (await Promise.all([locker, observer].map((c) => c.query('SELECT pg_backend_pid() AS pid')))).map(
      (result) => result.rows[0].pid as number,
    );
    const before = await backendsOf(observer, ownPids);
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');

    const probes = Array.from({ length: PROBES }, () => fetch(`http://127.0.0.1:${port}/api/v1/readyz`));
    await waitUntil(
      async () => {
        const { rows } = await observer.query<{ count: number }>(
          "SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
          [migrated.name],
        );
        return received.requests === PROBES && (rows[0]?.count ?? 0) > 0;
      },
      { what: 'every probe received while the check waits on the lock' },
    );
    expect(await backendsOf(observer, ownPids)).toBeLessThanOrEqual(before + 1);

    await locker.query('ROLLBACK');
    const responses = await Promise.all(probes);
    expect(responses.map((response) => response.status)).toEqual(Array(PROBES).fill(200));
    // One check: whether the history table exists, its rows, and whether the user may create roles.
    const statementsOfOneCheck = 3;
    expect(counter.statements).toBe(statementsOfOneCheck);

    // Within the window the answer is reused; after it, the next probe checks again, once.
    clock += READINESS_REUSE_MS - 1;
    expect((await request(app).get('/api/v1/readyz')).status).toBe(200);
    expect(counter.statements).toBe(statementsOfOneCheck);
    clock += 1;
    await Promise.all([request(app).get('/api/v1/readyz'), request(app).get('/api/v1/readyz')]);
    expect(counter.statements).toBe(2 * statementsOfOneCheck);
  });

  it('answers not ready when the database does not answer in time', async () => {
    locker = await migrated.connectClient();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');
    expect(await checkReadiness(migrated.prisma, { logger, timeoutMs: 50 })).toEqual({
      ready: false,
      detail: 'The database did not answer within 50 ms.',
    });
  });
});

describe('unknown routes', () => {
  it('answer 404 problem+json', async () => {
    const response = await request(appFor(migrated.prisma)).get('/api/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
