// The seam between a run's end and the outgoing webhooks (whose delivery is the manager's): a run the
// engine drives to success queues run.succeeded, and an endpoint that opted into content gets the run's
// final reply, because the engine appends the thread and stores the run's end in one transaction.
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { joinText } from '../testing/read-event-stream.js';
import { runWithClient } from '../testing/run-with-client.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

let database: TestDatabase;
let engine: RunningEngine;
let workspaceId: string;
let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  workspaceId = (await makeWorkspace(database.prisma)).id;
  agentId = (await makeAgent(database.prisma, workspaceId)).id;
  await writeConfigRow(database.prisma, { agentId, workspaceId }, 1, makeLlmEngineConfig({ agentId, workspaceId }));
  engine = await startDatabaseEngine(database, agentId);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
});

afterAll(async () => {
  await engine?.shutdown();
  await database?.drop();
});

/** An endpoint as the manager stores one; nothing here sends to it, the rows queued for it are the point. */
function subscribe(includeContent: boolean) {
  return database.prisma.webhookEndpoint.create({
    data: {
      workspaceId,
      url: 'https://hooks.example.test/runs',
      eventTypes: ['run.succeeded'],
      secret: 'sealed elsewhere',
      includeContent,
    },
  });
}

describe("a run's end", () => {
  it('queues run.succeeded, with the final reply for the endpoint that opted into content only', async () => {
    const [plain, withContent] = await Promise.all([subscribe(false), subscribe(true)]);
    const runId = randomUUID();
    const client = new HttpAgent({
      url: `${engine.url}/agent/run`,
      threadId: randomUUID(),
      initialMessages: [{ id: randomUUID(), role: 'user', content: 'say these words back' }],
    });
    const run = await runWithClient(client, { runId });
    expect(run.types.at(-1)).toBe('RUN_FINISHED');
    const reply = joinText(run.events);
    expect(reply).not.toBe('');

    const dataFor = async (endpointId: string) => {
      const delivery = await database.prisma.webhookDelivery.findFirst({ where: { endpointId } });
      return (delivery?.payload as { data?: Record<string, unknown> } | undefined)?.data;
    };
    await waitUntil(async () => (await dataFor(withContent.id)) !== undefined, { what: 'the run.succeeded delivery' });
    expect(await dataFor(withContent.id)).toMatchObject({ run_id: runId, status: 'succeeded', reply });
    const bare = await dataFor(plain.id);
    expect(bare).toMatchObject({ run_id: runId, status: 'succeeded' });
    expect(bare).not.toHaveProperty('reply');
  });
});
