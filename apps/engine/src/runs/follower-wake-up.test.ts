// The follower wake-up race of GET /agent/runs/{id}/stream: news stored (and notified) after a
// follower has read the stored events but before it starts waiting must still wake it. The window is
// forced open: the follower's first read of the event log is held until another event is stored and
// its NOTIFY has gone out, with the fallback poll set to ten minutes, so a follower that missed that
// news would stay asleep far past the test's wait.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import {
  createTestDatabase,
  issueTestEngineCredentials,
  makeAgent,
  makeWorkspace,
  type TestDatabase,
} from '@agentplane/db/testing';
import { createLogger } from '@agentplane/server-kit';
import { listenOnLoopback, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import pg from 'pg';
import { type SharedListener, startSharedListener } from '../database/shared-listener.js';
import { createEngineMetrics } from '../metrics/engine-metrics.js';
import { readSseBlocks } from '../testing/read-sse-frames.js';
import { holdRefusingPort } from '../testing/refusing-port.js';
import { createRunningRun } from '../testing/run-rows.js';
import { createActiveRuns } from './active-runs.js';
import type { RunStore } from './recorded-run.js';
import { handleRejoin } from './rejoin-handler.js';
import { appendEvents } from './run-event-log.js';
import { createRunFollowReads } from './run-follow-reads.js';
import { type RunNotifications, startRunNotifications } from './run-notifications.js';
import { finishRun } from './run-records.js';

const logger = createLogger({ name: 'follower-wake-up-test', level: 'silent' });
const OWNER = 'replica-under-test';

let database: TestDatabase;
let pool: pg.Pool;
let notifications: RunNotifications;
let agentId: string;
let runChannel: string;
let listener: SharedListener;

const listenerOn = (url: string) =>
  startSharedListener({ connect: () => new pg.Client({ connectionString: url }), logger });

beforeAll(async () => {
  database = await createTestDatabase();
  pool = database.createPool();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  await issueTestEngineCredentials(database, agentId);
  const { rows } = await pool.query<{ channel: string }>(
    'SELECT run_channel AS channel FROM engine_channels WHERE agent_id = $1',
    [agentId],
  );
  runChannel = rows[0]?.channel ?? '';
  listener = listenerOn(database.url);
  notifications = startRunNotifications({
    listen: (handlers) => listener.subscribe(runChannel, handlers),
    pollMs: 600_000,
  });
  // The LISTEN connection is up once a notification of ours wakes a waiter.
  let heard = false;
  void notifications.nextChange('probe', new AbortController().signal).then(() => {
    heard = true;
  });
  await waitUntil(
    async () => {
      await notifyRunChannel(agentId, 'run:probe');
      return heard;
    },
    { what: 'the LISTEN connection' },
  );
});

const notifyRunChannel = (id: string, payload: string) =>
  pool.query('SELECT pg_notify(run_channel, $2) FROM engine_channels WHERE agent_id = $1', [id, payload]);

afterAll(async () => {
  await notifications?.stop();
  await listener?.stop();
  await database?.drop();
});

/** `pool`, except that the first read of the event log runs `meanwhile` before it answers. */
function holdingFirstEventRead(meanwhile: () => Promise<void>): pg.Pool {
  let held = false;
  const query = async (textOrConfig: string | pg.QueryConfig, values?: unknown[]) => {
    const result = await pool.query(textOrConfig, values);
    const text = typeof textOrConfig === 'string' ? textOrConfig : textOrConfig.text;
    if (!held && text.includes('FROM run_events')) {
      held = true;
      await meanwhile();
    }
    return result;
  };
  return new Proxy(pool, {
    get: (target, property) => (property === 'query' ? query : Reflect.get(target, property, target)),
  });
}

/** The run store of a replica that follows runs through `db`, woken by `news`. */
function followingStore(news: RunNotifications, db: pg.Pool): RunStore {
  return {
    agentId,
    owner: OWNER,
    leaseMs: 600_000,
    pendingCaps: { perThread: 10, perSubject: 100 },
    eventLog: true,
    interruptTtlSeconds: 3600,
    notifications: news,
    follows: createRunFollowReads(db, agentId),
    active: createActiveRuns({ db, agentId, owner: OWNER, logger }),
    wakeQueue: () => undefined,
    spendTarget: () => undefined,
    metrics: createEngineMetrics(),
    pool: db,
  };
}

const startRun = (runId: string) => createRunningRun(pool, { agentId, runId, owner: OWNER });

/** Follows the run with a rejoin on `server`, collecting the ids it is sent until the stream ends. */
async function follow(origin: string, runId: string, signal: AbortSignal) {
  const ids: string[] = [];
  const response = await fetch(`${origin}/agent/runs/${runId}/stream`, { signal });
  const reading = readSseBlocks(
    response,
    (block) => {
      const id = block.match(/^id: (.*)$/m)?.[1];
      if (id !== undefined) ids.push(id);
    },
    () => false,
  );
  reading.catch(() => undefined);
  return { ids, reading };
}

async function serveRejoin(store: RunStore) {
  const app = express();
  app.use((req, res, next) => {
    res.locals.snapshot = { config: { agent: { id: agentId } } };
    Object.assign(req, { log: logger });
    next();
  });
  const rejoin = handleRejoin(store);
  app.get('/agent/runs/:runId/stream', (req, res) => rejoin({ params: { runId: String(req.params.runId) } }, req, res));
  const server = createServer(app);
  const { origin } = await listenOnLoopback(server);
  return { origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('a follower of a running run', () => {
  it('is woken by news stored between its read of the events and its wait', async () => {
    const runId = randomUUID();
    const run = { agentId, runId, owner: OWNER };
    await startRun(runId);
    await appendEvents(pool, agentId, runId, [{ seq: 1, data: '{"type":"RUN_STARTED"}' }]);

    const store = followingStore(
      notifications,
      holdingFirstEventRead(async () => {
        // Resolves only on the NOTIFY of the event stored next (the poll is ten minutes away).
        const notified = notifications.nextChange(runId, new AbortController().signal);
        await appendEvents(pool, agentId, runId, [{ seq: 2, data: '{"type":"TEXT_MESSAGE_START"}' }]);
        await notified;
      }),
    );
    const server = await serveRejoin(store);
    // A follower left asleep would hold the stream open: the client leaves, so the server can close.
    const client = new AbortController();
    try {
      const { ids, reading } = await follow(server.origin, runId, client.signal);
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

describe('followers on a replica whose LISTEN connection is down', () => {
  it('are woken by the poll and follow every event to the end, shared between them', async () => {
    const refusing = await holdRefusingPort();
    const deafListener = listenerOn(`postgresql://postgres@${refusing.origin.replace(/^https?:\/\//, '')}/none`);
    const deaf = startRunNotifications({
      listen: (handlers) => deafListener.subscribe(runChannel, handlers),
      pollMs: 20,
    });
    const runId = randomUUID();
    const run = { agentId, runId, owner: OWNER };
    await startRun(runId);
    const server = await serveRejoin(followingStore(deaf, pool));
    const client = new AbortController();
    try {
      const followers = await Promise.all([0, 1, 2].map(() => follow(server.origin, runId, client.signal)));
      // Each event is notified, but to no one here: only the poll can bring it.
      await appendEvents(pool, agentId, runId, [{ seq: 1, data: '{"type":"RUN_STARTED"}' }]);
      await waitUntil(() => followers.every(({ ids }) => ids.length === 1), { what: 'the first event, polled' });
      await finishRun(pool, run, { status: 'succeeded' }, [{ seq: 2, data: '{"type":"RUN_FINISHED"}' }]);
      await Promise.all(followers.map(({ reading }) => reading));
      for (const { ids } of followers) expect(ids).toEqual([`${runId}:1`, `${runId}:2`]);
    } finally {
      client.abort();
      await server.close();
      await deaf.stop();
      await deafListener.stop();
      await refusing.release();
    }
  });
});

describe("another agent's engine role", () => {
  it("hears none of this agent's run news, on the channel engines once shared or on its own", async () => {
    const workspace = await makeWorkspace(database.prisma);
    const otherId = (await makeAgent(database.prisma, workspace.id)).id;
    const other = await database.connectClient({
      url: (await issueTestEngineCredentials(database, otherId)).DATABASE_URL,
    });
    // All it may read of the channels is its own agent's.
    const { rows } = await other.query<{ agent_id: string; run_channel: string }>(
      'SELECT agent_id, run_channel FROM engine_channels',
    );
    expect(rows.map((row) => row.agent_id)).toEqual([otherId]);
    const heard: string[] = [];
    other.on('notification', (message) => heard.push(message.payload ?? ''));
    await other.query('LISTEN agent_run_events');
    await other.query(`LISTEN ${rows[0]?.run_channel}`);

    const runId = randomUUID();
    await startRun(runId);
    await appendEvents(pool, agentId, runId, [{ seq: 1, data: '{"type":"RUN_STARTED"}' }]);
    await finishRun(pool, { agentId, runId, owner: OWNER }, { status: 'succeeded' });
    // Notifications reach a session in commit order: once its own marker is heard, this agent's news
    // would have been heard before it.
    await notifyRunChannel(otherId, 'marker');
    await waitUntil(() => heard.includes('marker'), { what: 'its own marker' });
    expect(heard).toEqual(['marker']);
  });
});
