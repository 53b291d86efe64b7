// Run rows in tests: a running run made as its replica makes it, and what the agent_runs table says of a
// thread's runs, for tests of the one-run-per-thread rule.
import type { TestDatabase } from '@agentplane/db/testing';
import { expect } from '@jest/globals';
import { createRun } from '../runs/run-records.js';
import type { Queryable } from '../threads/thread-store.js';

/** The thread's started runs in the order they started, checked never to overlap: each ended before the next started. */
export async function expectRunsOneAtATime(
  database: TestDatabase,
  agentId: string,
  threadId: string,
): Promise<{ id: string; status: string }[]> {
  const runs = await database.prisma.agentRun.findMany({
    where: { agentId, threadId, startedAt: { not: null } },
    orderBy: { startedAt: 'asc' },
  });
  runs.slice(1).forEach((run, index) => {
    const endedBefore = runs[index]?.finishedAt ?? null;
    expect(endedBefore).not.toBeNull();
    expect(run.startedAt?.getTime()).toBeGreaterThanOrEqual(endedBefore?.getTime() ?? Number.POSITIVE_INFINITY);
  });
  return runs;
}

/** A run's row as its replica creates it, `running` under `owner` on a thread of its own, with a long lease. */
export async function createRunningRun(db: Queryable, run: { agentId: string; runId: string; owner: string }) {
  await createRun(db, {
    ...run,
    threadId: 'thread',
    threadKey: `key-${run.runId}`,
    caller: undefined,
    source: 'stream',
    configVersion: 1,
    leaseMs: 600_000,
  });
}
