// The follower wake-up race of GET /agent/runs/{id}/stream: news stored (and notified) after a
// follower has read the stored events but before it starts waiting must still wake it. The window is
// forced open: the follower's first read of the event log is held until another event is stored and
// its NOTIFY has gone out, with the fallback poll set to ten minutes, so a follower that missed that
// news would stay asleep far past the test's wait.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { listenOnLoopback, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import type pg from 'pg';
import { createEngineMetrics } from '../metrics/engine-metrics.js';
import { readSseBlocks } from '../testing/read-sse-frames.js';
import { createActiveRuns } from './active-runs.js';
import type { RunStore } from './recorded-run.js';
import { handleRejoin } from './rejoin-handler.js';
import { appendEvents } from './run-event-log.js';
import { type RunNotifications, startRunNotifications } from './run-notifications.js';
import { createRun, finishRun, RUN_EVENTS_CHANNEL } from './run-records.js';

const logger = createLogger({ name: 'follower-wake-up-test', level: 'silent' });
const OWNER = 'replica-under-test';

let database: TestDatabase;
let pool: pg.Pool;
let notifications: RunNotifications;
let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = database.createPool();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  notifications = startRunNotifications({ databaseUrl: database.url, agentId, logger, pollMs: 600_000 });
  // The LISTEN connection is up once a notification of ours wakes a waiter.
  let heard = false;
  void notifications.nextChange('probe', new AbortController().signal).then(() => {
    heard = true;
  });
  await waitUntil(
    async () => {
      await pool.query('SELECT pg_notify($1, $2)', [RUN_EVENTS_CHANNEL, `${agentId}:probe`]);
      return heard;
    },
    { what: 'the LISTEN connection' },
  );
});

afterAll(async () => {
  await notifications?.stop();
  await database?.drop();
});

/** `pool`, except that the first read of the event log runs `meanwhile` before it answers. */
function holdingFirstEventRead(meanwhile: () => Promise<void>): pg.Pool {
  let held = false;
  const query = async (text: unknown, values?: unknown[]) => {
    const result = await pool.query(text as string, values);
    if (!held && typeof text === 'string' && text.includes('FROM run_events')) {
      held = true;
      await meanwhile();
    }
    return result;
  };
  return new Proxy(pool, {
    get: (target, property) => (property === 'query' ? query : Reflect.get(target, property, target)),
  });
}

async function serveRejoin(store: RunStore) {
  const app = express();
  app.use((req, res, next) => {
    res.locals.snapshot = { config: { agent: { id: agentId } } };
    Object.assign(req, { log: logger });
    next();
  });
  app.get('/agent/runs/:runId/stream', handleRejoin(store));
  const server = createServer(app);
  const { origin } = await listenOnLoopback(server);
  return { origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('a follower of a running run', () => {
  it('is woken by news stored between its read of the events and its wait', async () => {
    const runId = randomUUID();
    const run = { agentId, runId, owner: OWNER };
    await createRun(pool, {
      ...run,
      threadId: 'thread',
      threadKey: `key-${runId}`,
      caller: undefined,
      source: 'stream',
      leaseMs: 600_000,
    });
    await appendEvents(pool, agentId, runId, [{ seq: 1, data: '{"type":"RUN_STARTED"}' }]);

    const store: RunStore = {
      agentId,
      owner: OWNER,
      leaseMs: 600_000,
      eventLog: true,
      notifications,
      active: createActiveRuns({ db: pool, agentId, owner: OWNER, logger }),
      wakeQueue: () => undefined,
      metrics: createEngineMetrics(),
      pool: holdingFirstEventRead(async () => {
        // Resolves only on the NOTIFY of the event stored next (the poll is ten minutes away).
        const notified = notifications.nextChange(runId, new AbortController().signal);
        await appendEvents(pool, agentId, runId, [{ seq: 2, data: '{"type":"TEXT_MESSAGE_START"}' }]);
        await notified;
      }),
    };
    const server = await serveRejoin(store);
    // A follower left asleep would hold the stream open: the client leaves, so the server can close.
    const client = new AbortController();
    try {
      const ids: string[] = [];
      const response = await fetch(`${server.origin}/agent/runs/${runId}/stream`, { signal: client.signal });
      const reading = readSseBlocks(
        response,
        (block) => {
          const id = block.match(/^id: (.*)$/m)?.[1];
          if (id !== undefined) ids.push(id);
        },
        () => false,
      );
      reading.catch(() => undefined);
      await waitUntil(() => ids.length === 2, { what: "the event stored inside the follower's read" });
      expect(ids).toEqual([`${runId}:1`, `${runId}:2`]);

      await finishRun(pool, run, { status: 'succeeded' });
      await reading;
      expect(ids).toEqual([`${runId}:1`, `${runId}:2`]);
    } finally {
      client.abort();
      await server.close();
    }
  });
});
