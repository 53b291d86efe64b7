// A run's record names the config version it ran with (agent_runs.agent_version), as the agent's own
// engine role writes it: a run created running takes its snapshot's version, a queued run none until a
// replica claims it, and then that replica's, whatever version was current when it was queued, or the
// version it is pinned to (an experiment's).
import { randomUUID } from 'node:crypto';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { queueExperimentRun } from '../testing/experiment-runs.js';
import { engineCredentialsFor } from '../testing/test-engine.js';
import { claimNextRun, enqueueRun } from './run-control-records.js';
import { createRun } from './run-records.js';

let database: TestDatabase;
let pool: pg.Pool;
let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  agentId = (await makeAgent(database.prisma, workspace.id)).id;
  pool = database.createPool({ url: (await engineCredentialsFor(database, agentId)).DATABASE_URL });
});

afterAll(async () => {
  await database?.drop();
});

const versionOf = async (runId: string) =>
  (await pool.query<{ v: string | null }>('SELECT agent_version::text AS v FROM agent_runs WHERE id = $1', [runId]))
    .rows[0]?.v;

describe("a run's agent_version", () => {
  it('is the version of the snapshot that created it running', async () => {
    const runId = randomUUID();
    const conflict = await createRun(pool, {
      agentId,
      runId,
      threadId: 't',
      threadKey: `key-${runId}`,
      caller: undefined,
      source: 'stream',
      configVersion: 7,
      owner: 'replica-a',
      leaseMs: 60_000,
    });
    expect(conflict).toBeUndefined();
    expect(await versionOf(runId)).toBe('7');
  });

  it('is unset while queued, and the claiming replica stamps its own', async () => {
    const runId = `run-${randomUUID()}`;
    const threadKey = `key-${runId}`;
    const queued = await enqueueRun(
      pool,
      {
        agentId,
        runId,
        threadId: threadKey,
        threadKey,
        caller: undefined,
        source: 'background',
        input: { ...makeRunAgentInput('hi'), threadId: threadKey, runId },
      },
      'enqueue',
      { perThread: 10, perSubject: 10 },
    );
    expect(queued).toBeUndefined();
    expect(await versionOf(runId)).toBeNull();
    const claimed = await claimNextRun(pool, agentId, 'replica-b', 60_000, 9);
    expect(claimed?.id).toBe(runId);
    expect(claimed?.pinned_version).toBeNull();
    expect(await versionOf(runId)).toBe('9');
  });

  it('is the version a run is pinned to, whatever the claiming replica serves', async () => {
    const { runId } = await queueExperimentRun(database.prisma, {
      agentId,
      issuer: 'https://manager.test',
      version: 4,
      content: 'hi',
    });
    const claimed = await claimNextRun(pool, agentId, 'replica-c', 60_000, 9);
    expect(claimed).toMatchObject({ id: runId, source: 'experiment', pinned_version: 4 });
    expect(await versionOf(runId)).toBe('4');
  });
});
