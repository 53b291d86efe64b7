// Pruning finished runs, as the engine does it: through the agent's own database role, in bounded
// batches, with their events, leaving running, recent and other agents' runs alone.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { engineCredentialsFor, startDatabaseEngine } from '../testing/test-engine.js';
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

/** An agent with a published config, and a client logged in as its engine role. */
async function makeEngineAgent(): Promise<{ agentId: string; engineDb: pg.Client }> {
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  const row = { agentId: agent.id, workspaceId: workspace.id };
  await writeConfigRow(database.prisma, row, 1, makeLlmEngineConfig(row));
  const credentials = await engineCredentialsFor(database, agent.id);
  return { agentId: agent.id, engineDb: await database.connectClient({ url: credentials.DATABASE_URL }) };
}

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
        events: { create: [1, 2].map((seq) => ({ seq, data: '{}' })) },
      },
    });
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

  it('deletes in batches of batchSize, going on while a batch was full, and at most maxBatches per call', async () => {
    const { agentId, engineDb } = await makeEngineAgent();
    await seed(agentId, 'succeeded', 31, 7);
    const options = { retentionMs: RETENTION_MS, batchSize: 3, maxBatches: 2 };
    expect(await pruneFinishedRuns(engineDb, agentId, options)).toEqual({ deleted: 6, batches: 2 });
    expect(await remaining(agentId)).toHaveLength(1);
    expect(await pruneFinishedRuns(engineDb, agentId, options)).toEqual({ deleted: 1, batches: 1 });
    expect(await eventsOf(agentId)).toBe(0);
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
