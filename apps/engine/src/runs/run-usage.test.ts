// A run's record carries the tokens its model calls used, as the provider counted them: the engine asks
// an OpenAI-compatible server for its usage chunk and sums it over the run's model calls.
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { runWithClient } from '../testing/run-with-client.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

let model: FakeOpenAiServer;
let database: TestDatabase;
let agentId: string;
let engine: RunningEngine;

beforeAll(async () => {
  [model, database] = await Promise.all([startFakeOpenAiServer(), createTestDatabase()]);
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  agentId = (await makeAgent(database.prisma, workspaceId)).id;
  const config = makeLlmEngineConfig({
    agentId,
    workspaceId,
    model: { provider: 'openai', name: 'm', baseUrl: model.baseUrl },
  });
  await writeConfigRow(database.prisma, { agentId, workspaceId }, 1, config);
  engine = await startDatabaseEngine(database, agentId);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([model?.close(), database?.drop()]);
});

async function runOnce(): Promise<string> {
  const agent = new HttpAgent({
    url: `${engine.url}/agent/run`,
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
  });
  const runId = randomUUID();
  const { last } = await runWithClient(agent, { runId });
  expect(last?.type).toBe('RUN_FINISHED');
  return runId;
}

const usageOf = async (runId: string) =>
  (await database.prisma.agentRun.findUniqueOrThrow({ where: { agentId_id: { agentId, id: runId } } })).usage;

describe('run usage', () => {
  it("asks the provider for its usage and stores the model call's count on the run", async () => {
    model.script({ text: ['hello'], usage: { prompt_tokens: 11, completion_tokens: 4 } });
    const runId = await runOnce();
    expect(model.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });
    expect(await usageOf(runId)).toEqual({ input_tokens: 11, output_tokens: 4, total_tokens: 15, model_calls: 1 });
  });

  it('sums the usage of every model call of the run', async () => {
    // A call of a tool the agent does not have is answered with an error outcome, and the model is asked again.
    model.script(
      {
        toolCalls: [{ id: 'call-1', name: 'missing', arguments: ['{}'] }],
        usage: { prompt_tokens: 3, completion_tokens: 2 },
      },
      { text: ['done'], usage: { prompt_tokens: 7, completion_tokens: 1 } },
    );
    const runId = await runOnce();
    expect(await usageOf(runId)).toEqual({ input_tokens: 10, output_tokens: 3, total_tokens: 13, model_calls: 2 });
  });
});
