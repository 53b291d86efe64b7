// What the agent_runs table says of a thread's runs, for tests of the one-run-per-thread rule.
import type { TestDatabase } from '@agentplane/db/testing';
import { expect } from '@jest/globals';

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
