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
let mockAgentId: string;
let mockEngine: RunningEngine;

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
  mockAgentId = (await makeAgent(database.prisma, workspaceId)).id;
  const mockConfig = makeLlmEngineConfig({ agentId: mockAgentId, workspaceId, instructions: 'Answer in kind.' });
  await writeConfigRow(database.prisma, { agentId: mockAgentId, workspaceId }, 1, mockConfig);
  [engine, mockEngine] = await Promise.all([
    startDatabaseEngine(database, agentId),
    startDatabaseEngine(database, mockAgentId),
  ]);
  for (const started of [engine, mockEngine]) {
    await waitUntil(async () => (await fetch(`${started.url}/health`)).status === 200, { what: 'the config to load' });
  }
});

afterAll(async () => {
  await Promise.all([engine?.shutdown(), mockEngine?.shutdown()]);
  await Promise.all([model?.close(), database?.drop()]);
});

async function runOnce(on = engine, content = 'hi'): Promise<string> {
  const agent = new HttpAgent({
    url: `${on.url}/agent/run`,
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content }],
  });
  const runId = randomUUID();
  const { last } = await runWithClient(agent, { runId });
  expect(last?.type).toBe('RUN_FINISHED');
  return runId;
}

const usageOf = async (runId: string, of = agentId) =>
  (await database.prisma.agentRun.findUniqueOrThrow({ where: { agentId_id: { agentId: of, id: runId } } })).usage;

describe('run usage', () => {
  it("asks the provider for its usage and stores the model call's count on the run", async () => {
    model.script({ text: ['hello'], usage: { prompt_tokens: 11, completion_tokens: 4 } });
    const runId = await runOnce();
    expect(model.requests.at(-1)?.body.stream_options).toEqual({ include_usage: true });
    expect(await usageOf(runId)).toEqual({
      input_tokens: 11,
      output_tokens: 4,
      total_tokens: 15,
      model_calls: 1,
      model: 'openai/m',
    });
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
    expect(await usageOf(runId)).toEqual({
      input_tokens: 10,
      output_tokens: 3,
      total_tokens: 13,
      model_calls: 2,
      model: 'openai/m',
    });
  });

  it("stores the mock model's deterministic count: the words it was given in, the deltas it streamed out", async () => {
    // In: "Answer in kind." (3) + "hello there" (2); out: "You said: hello there", a word a delta (4).
    const runId = await runOnce(mockEngine, 'hello there');
    expect(await usageOf(runId, mockAgentId)).toEqual({
      input_tokens: 5,
      output_tokens: 4,
      total_tokens: 9,
      model_calls: 1,
      model: 'mock/echo',
    });
  });
});
