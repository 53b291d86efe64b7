// A run the database cannot queue in time is refused as a 503 the client may retry, not a 500: here its
// enqueue waits for a lock held elsewhere until the engine role's statement_timeout cancels it.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { engineRoleName } from '@agentplane/db/engine-roles';
import {
  createTestDatabase,
  issueTestEngineCredentials,
  makeAgent,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestEngine } from '../testing/test-engine.js';

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));

let database: TestDatabase;
let engine: RunningEngine;
let locker: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  const agentId = (await makeAgent(database.prisma, workspace.id)).id;
  const row = { agentId, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig('slow-agent.js:createSlowAgent', row));
  const credentials = await issueTestEngineCredentials(database, agentId);
  // Short, so that the wait ends soon; the engine's connections are opened after this.
  await database.prisma.$executeRawUnsafe(`ALTER ROLE ${engineRoleName(agentId)} SET statement_timeout = '1s'`);
  engine = await startTestEngine({ ...credentials, ENGINE_AGENTS_DIR: FIXTURES, ENGINE_AUTH: 'disabled' });
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
  locker = await database.connectClient();
});

afterAll(async () => {
  await locker?.end();
  await engine?.shutdown();
  await database?.drop();
});

const queueRun = () =>
  fetch(`${engine.url}/agent/runs`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      ...makeRunAgentInput('1 0'),
      threadId: `thread-${randomUUID()}`,
      runId: `run-${randomUUID()}`,
    }),
  });

describe('a database too busy to queue a run', () => {
  it('is a 503 with Retry-After, and the run is queued once the lock is free', async () => {
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE run_queue_locks IN EXCLUSIVE MODE');
    try {
      const refused = await queueRun();
      expect(refused.status).toBe(503);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get('retry-after')).toBe('5');
      const body = (await refused.json()) as { detail: string };
      expect(body.detail).toMatch(/database is busy/);
      expect(JSON.stringify(body)).not.toMatch(/statement timeout|canceling|run_queue_locks/);
    } finally {
      await locker.query('ROLLBACK');
    }
    expect((await queueRun()).status).toBe(202);
  });
});
