// Pruning finished inbound messages, as the engine does it: through the agent's own database role,
// in bounded batches, leaving unfinished and recent rows and other agents' rows alone.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { makeEngineAgent as makeTestEngineAgent } from '../testing/engine-config-rows.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { pruneFinishedMessages } from './inbound-retention.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_MS = 7 * DAY_MS;

type Status = 'pending' | 'processing' | 'done' | 'failed' | 'skipped';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

const makeEngineAgent = () => makeTestEngineAgent(database);

/** Stores `count` messages of `status`, last written `ageDays` ago; returns their provider ids. */
async function seed(agentId: string, status: Status, ageDays: number, count = 1): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `wamid.${status}.${randomUUID()}`);
  await database.prisma.inboundMessage.createMany({
    data: ids.map((providerMessageId) => ({
      agentId,
      integrationId: randomUUID(),
      providerMessageId,
      sender: '4915',
      payload: {},
      status,
    })),
  });
  await database.prisma.$executeRawUnsafe(
    `UPDATE inbound_messages SET updated_at = now() - $1::float8 * interval '1 day' WHERE provider_message_id = ANY($2::text[])`,
    ageDays,
    ids,
  );
  return ids;
}

const remaining = async (agentId: string) =>
  (await database.prisma.inboundMessage.findMany({ where: { agentId }, select: { providerMessageId: true } }))
    .map((row) => row.providerMessageId)
    .sort();

describe('pruneFinishedMessages', () => {
  it('deletes finished messages past the retention period, and keeps unfinished, recent and other agents’ ones', async () => {
    const { agentId, engineDb } = await makeEngineAgent();
    const other = await makeEngineAgent();
    await Promise.all([seed(agentId, 'done', 8), seed(agentId, 'failed', 30), seed(agentId, 'skipped', 8)]);
    const kept = (
      await Promise.all([
        seed(agentId, 'done', 6),
        seed(agentId, 'failed', 0),
        seed(agentId, 'pending', 30),
        seed(agentId, 'processing', 30),
      ])
    ).flat();
    const othersOld = await seed(other.agentId, 'done', 30);

    expect(await pruneFinishedMessages(engineDb, agentId, { retentionMs: RETENTION_MS })).toEqual({
      deleted: 3,
      batches: 1,
    });
    expect(await remaining(agentId)).toEqual(kept.sort());
    expect(await remaining(other.agentId)).toEqual(othersOld);
  });

  it('deletes in batches of batchSize, going on while a batch was full, and at most maxBatches per call', async () => {
    const { agentId, engineDb } = await makeEngineAgent();
    await seed(agentId, 'done', 8, 7);
    const options = { retentionMs: RETENTION_MS, batchSize: 3, maxBatches: 2 };
    expect(await pruneFinishedMessages(engineDb, agentId, options)).toEqual({ deleted: 6, batches: 2 });
    expect(await remaining(agentId)).toHaveLength(1);
    expect(await pruneFinishedMessages(engineDb, agentId, options)).toEqual({ deleted: 1, batches: 1 });
    expect(await pruneFinishedMessages(engineDb, agentId, options)).toEqual({ deleted: 0, batches: 1 });
  });
});

describe('a database-mode engine', () => {
  it('prunes its finished messages past WHATSAPP_RETENTION_DAYS when it starts', async () => {
    const { agentId } = await makeEngineAgent();
    await seed(agentId, 'done', 3, 2);
    const kept = [...(await seed(agentId, 'done', 1)), ...(await seed(agentId, 'pending', 3))];
    let engine: RunningEngine | undefined;
    try {
      engine = await startDatabaseEngine(database, agentId, { WHATSAPP_RETENTION_DAYS: '2' });
      await waitUntil(async () => (await remaining(agentId)).length === kept.length, {
        what: 'the engine to prune its old finished messages',
      });
      expect(await remaining(agentId)).toEqual(kept.sort());
    } finally {
      await engine?.shutdown();
    }
  });
});
