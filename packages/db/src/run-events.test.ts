// A run's events go with their run (a trigger on agent_runs, migration 20261127010000): whichever way the
// run is deleted, and never another run's events, even another agent's run with the same id.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { makeAgent, makeWorkspace } from './testing/factories.js';
import { createTestDatabase, type TestDatabase } from './testing/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const db = () => database.prisma;

/** A finished run of `agentId` with three events. */
async function storeRun(agentId: string, runId: string = randomUUID()): Promise<string> {
  await db().agentRun.create({
    data: { agentId, id: runId, threadId: 't', threadKey: `t-${runId}`, source: 'stream', status: 'succeeded' },
  });
  await db().runEvent.createMany({ data: [1, 2, 3].map((seq) => ({ agentId, runId, seq, data: '{}' })) });
  return runId;
}

const eventsOf = (agentId: string, runId?: string) =>
  db().runEvent.count({ where: { agentId, ...(runId === undefined ? {} : { runId }) } });

describe('a run’s events go with it', () => {
  it('deleting runs deletes their events, and no other run’s, even another agent’s run of the same id', async () => {
    const workspace = await makeWorkspace(db());
    const [agent, other] = [await makeAgent(db(), workspace.id), await makeAgent(db(), workspace.id)];
    const doomed = [await storeRun(agent.id), await storeRun(agent.id)];
    const kept = await storeRun(agent.id);
    await storeRun(other.id, doomed[0]);

    // One statement deleting two runs, as retention does.
    const deleted = await db().agentRun.deleteMany({ where: { agentId: agent.id, id: { in: doomed } } });

    expect(deleted.count).toBe(2);
    expect(await eventsOf(agent.id, doomed[0])).toBe(0);
    expect(await eventsOf(agent.id, doomed[1])).toBe(0);
    expect(await eventsOf(agent.id, kept)).toBe(3);
    expect(await eventsOf(other.id, doomed[0])).toBe(3);
  });

  it('deleting an agent, or its whole workspace, deletes its runs’ events through the cascades', async () => {
    const workspace = await makeWorkspace(db());
    const [agent, sibling] = [await makeAgent(db(), workspace.id), await makeAgent(db(), workspace.id)];
    await storeRun(agent.id);
    await storeRun(agent.id);
    await storeRun(sibling.id);
    const bystander = await makeAgent(db(), (await makeWorkspace(db())).id);
    await storeRun(bystander.id);

    await db().agent.delete({ where: { id: agent.id } });
    expect(await eventsOf(agent.id)).toBe(0);
    expect(await eventsOf(sibling.id)).toBe(3);

    await db().workspace.delete({ where: { id: workspace.id } });
    expect(await eventsOf(sibling.id)).toBe(0);
    expect(await eventsOf(bystander.id)).toBe(3);
  });
});
