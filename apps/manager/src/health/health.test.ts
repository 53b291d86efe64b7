import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createManagerApp } from '../app.js';
import { loadManagerConfig } from '../config.js';
import { TEST_SECRETS_KEY } from '../testing/manager-test-app.js';

const logger = createLogger({ name: 'test', level: 'silent' });

function appFor(database: TestDatabase, databaseUrl = database.url) {
  const config = loadManagerConfig({ NODE_ENV: 'test', DATABASE_URL: databaseUrl, SECRETS_KEY: TEST_SECRETS_KEY });
  return createManagerApp({ config, db: database.prisma, logger });
}

let migrated: TestDatabase;
let empty: TestDatabase;
beforeAll(async () => {
  [migrated, empty] = await Promise.all([createTestDatabase(), createTestDatabase({ migrated: false })]);
});
afterAll(async () => {
  await Promise.all([migrated?.drop(), empty?.drop()]);
});

describe('GET /api/v1/healthz', () => {
  it('answers 200 while the process lives, whatever the database says', async () => {
    const response = await request(appFor(migrated, 'postgresql://nobody@127.0.0.1:1/none')).get('/api/v1/healthz');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });
});

describe('GET /api/v1/readyz', () => {
  it('answers 200 when the database is reachable and fully migrated', async () => {
    const response = await request(appFor(migrated)).get('/api/v1/readyz');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ready' });
  });

  it('answers 503 naming the pending migrations', async () => {
    const response = await request(appFor(empty)).get('/api/v1/readyz');
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.detail).toMatch(/Migrations are pending: \d{14}_init/);
  });

  it('answers 503 when the database is unreachable', async () => {
    const response = await request(appFor(migrated, 'postgresql://nobody@127.0.0.1:1/none')).get('/api/v1/readyz');
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ status: 503, detail: 'The database is unreachable.' });
    expect(response.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
  });
});

describe('unknown routes', () => {
  it('answer 404 problem+json', async () => {
    const response = await request(appFor(migrated)).get('/api/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
