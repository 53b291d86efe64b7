// Pruning finished runs, as the engine does it: through the agent's own database role, in bounded
// batches (retention/prune-in-batches.ts, whose batching inbound-retention.test.ts covers), with their
// events, leaving running, recent and other agents' runs alone.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { makeEngineAgent as makeTestEngineAgent } from '../testing/engine-config-rows.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { pruneFinishedRuns } from './run-retention.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_MS = 30 * DAY_MS;

type Status = 'running' | 'succeeded' | 'failed' | 'cancelled';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
});

const makeEngineAgent = () => makeTestEngineAgent(database);

/** Stores `count` runs of `status` with two events each, created (and, unless running, finished) `ageDays` ago. */
async function seed(agentId: string, status: Status, ageDays: number, count = 1): Promise<string[]> {
  const ids = Array.from({ length: count }, () => `run-${status}-${randomUUID()}`);
  for (const id of ids) {
    await database.prisma.agentRun.create({
      data: {
        agentId,
        id,
        threadId: 't',
        threadKey: `t-${id}`,
        source: 'stream',
        status,
        lastSeq: 2,
      },
    });
    await database.prisma.runEvent.createMany({ data: [1, 2].map((seq) => ({ agentId, runId: id, seq, data: '{}' })) });
  }
  // Backdated as the owner: the engine's role cannot write created_at, and nothing but time would.
  await database.prisma.$executeRawUnsafe(
    `UPDATE agent_runs SET created_at = now() - $1::float8 * interval '1 day',
       finished_at = CASE WHEN status = 'running' THEN NULL ELSE now() - $1::float8 * interval '1 day' END
     WHERE id = ANY($2::text[])`,
    ageDays,
    ids,
  );
  return ids;
}

const remaining = async (agentId: string) =>
  (await database.prisma.agentRun.findMany({ where: { agentId }, select: { id: true } })).map((row) => row.id).sort();

const eventsOf = (agentId: string) => database.prisma.runEvent.count({ where: { agentId } });

describe('pruneFinishedRuns', () => {
  it('deletes finished runs past the retention period with their events, and keeps running, recent and other agents’ ones', async () => {
    const { agentId, engineDb } = await makeEngineAgent();
    const other = await makeEngineAgent();
    await Promise.all([seed(agentId, 'succeeded', 31), seed(agentId, 'failed', 90), seed(agentId, 'cancelled', 31)]);
    const kept = (
      await Promise.all([seed(agentId, 'succeeded', 29), seed(agentId, 'failed', 0), seed(agentId, 'running', 90)])
    ).flat();
    const othersOld = await seed(other.agentId, 'succeeded', 90);

    expect(await pruneFinishedRuns(engineDb, agentId, { retentionMs: RETENTION_MS })).toEqual({
      deleted: 3,
      batches: 1,
    });
    expect(await remaining(agentId)).toEqual(kept.sort());
    expect(await eventsOf(agentId)).toBe(2 * kept.length);
    expect(await remaining(other.agentId)).toEqual(othersOld);
  });
});

describe('a database-mode engine', () => {
  it('prunes its finished runs past ENGINE_RUN_RETENTION_DAYS when it starts', async () => {
    const { agentId } = await makeEngineAgent();
    await seed(agentId, 'succeeded', 3, 2);
    const kept = [...(await seed(agentId, 'succeeded', 1)), ...(await seed(agentId, 'running', 3))];
    let engine: RunningEngine | undefined;
    try {
      engine = await startDatabaseEngine(database, agentId, { ENGINE_RUN_RETENTION_DAYS: '2' });
      await waitUntil(async () => (await remaining(agentId)).length === kept.length, {
        what: 'the engine to prune its old finished runs',
      });
      expect(await remaining(agentId)).toEqual(kept.sort());
    } finally {
      await engine?.shutdown();
    }
  });
});
