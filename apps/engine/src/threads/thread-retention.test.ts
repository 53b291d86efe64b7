// Pruning idle threads, as the engine does it: through the agent's own database role, with their
// messages, leaving recent threads, threads with a run waiting or running, and other agents' threads
// alone; and a database-mode engine doing it at start after ENGINE_THREAD_RETENTION_DAYS.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { RunningEngine } from '../start-engine.js';
import { makeEngineAgent as makeTestEngineAgent } from '../testing/engine-config-rows.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { pruneIdleThreads } from './thread-retention.js';
import { appendThreadMessages } from './thread-store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = database.createPool({ max: 2 });
});

afterAll(async () => {
  await database?.drop();
});

const makeEngineAgent = () => makeTestEngineAgent(database);

/** Stores a thread with two messages, last active `idleDays` ago; with a run of `runStatus` on it if given. */
async function seedThread(agentId: string, idleDays: number, runStatus?: 'pending' | 'running' | 'succeeded') {
  const key = `agui:${agentId}:${randomUUID()}`;
  const messages = [
    { id: randomUUID(), role: 'user' as const, content: 'hi' },
    { id: randomUUID(), role: 'assistant' as const, content: 'hello' },
  ];
  await appendThreadMessages(pool, agentId, key, messages);
  if (runStatus !== undefined) {
    await database.prisma.agentRun.create({
      data: {
        agentId,
        id: `run-${randomUUID()}`,
        threadId: 't',
        threadKey: key,
        source: 'background',
        status: runStatus,
      },
    });
  }
  // Backdated as the owner: nothing but time would move updated_at back.
  await database.prisma.$executeRawUnsafe(
    `UPDATE conversation_threads SET updated_at = now() - $1::float8 * interval '1 day' WHERE external_key = $2`,
    idleDays,
    key,
  );
  return key;
}

const remaining = async (agentId: string) =>
  (await database.prisma.conversationThread.findMany({ where: { agentId }, select: { externalKey: true } }))
    .map((row) => row.externalKey)
    .sort();
const messagesOf = (agentId: string) => database.prisma.conversationMessage.count({ where: { agentId } });

describe('pruneIdleThreads', () => {
  it('deletes threads idle past the retention period with their messages, and keeps recent, busy and other agents’ ones', async () => {
    const { agentId, engineDb } = await makeEngineAgent();
    const other = await makeEngineAgent();
    await Promise.all([seedThread(agentId, 31), seedThread(agentId, 400), seedThread(agentId, 31, 'succeeded')]);
    const kept = await Promise.all([
      seedThread(agentId, 29),
      seedThread(agentId, 31, 'pending'),
      seedThread(agentId, 31, 'running'),
    ]);
    const othersOld = await seedThread(other.agentId, 400);

    expect(await pruneIdleThreads(engineDb, agentId, { retentionMs: 30 * DAY_MS })).toEqual({
      deleted: 3,
      batches: 1,
    });
    expect(await remaining(agentId)).toEqual(kept.sort());
    expect(await messagesOf(agentId)).toBe(2 * kept.length);
    expect(await remaining(other.agentId)).toEqual([othersOld]);
  });
});

describe('a database-mode engine', () => {
  it('prunes its threads idle past ENGINE_THREAD_RETENTION_DAYS when it starts', async () => {
    const { agentId } = await makeEngineAgent();
    await seedThread(agentId, 3);
    const kept = [await seedThread(agentId, 1)];
    let engine: RunningEngine | undefined;
    try {
      engine = await startDatabaseEngine(database, agentId, { ENGINE_THREAD_RETENTION_DAYS: '2' });
      await waitUntil(async () => (await remaining(agentId)).length === kept.length, {
        what: 'the engine to prune its idle threads',
      });
      expect(await remaining(agentId)).toEqual(kept);
    } finally {
      await engine?.shutdown();
    }
  });
});
