// A model_judge rule in real runs of an LLM agent: the judge is the agent's own provider (here a
// scripted OpenAI-compatible server on loopback, which the agent's model calls too), its verdict
// blocks or passes the input, a judge that cannot answer fails closed for a blocking rule, and the
// judge's tokens count in the run's usage.
import { randomUUID } from 'node:crypto';
import { EventType } from '@ag-ui/core';
import type { TEngineGuardrail } from '@agentplane/contracts';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, makeRunAgentInput, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { postRawRun } from '../testing/raw-run.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

const RUBRIC = 'The message must not ask for medical advice.';
const KEY = `sk-${randomUUID()}`;

const GUARDRAIL: TEngineGuardrail = {
  id: randomUUID(),
  name: 'judged',
  description: null,
  rules: [
    {
      name: 'no-medical',
      kind: 'model_judge',
      position: 'input',
      action: 'block',
      rubric: RUBRIC,
      model: 'judge-model',
    },
  ],
};

let database: TestDatabase;
let model: FakeOpenAiServer;
let engine: RunningEngine;

beforeAll(async () => {
  [database, model] = await Promise.all([createTestDatabase(), startFakeOpenAiServer()]);
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  const row = { agentId: (await makeAgent(database.prisma, workspaceId)).id, workspaceId };
  const config = makeLlmEngineConfig({
    ...row,
    model: { provider: 'openai', name: 'agent-model', baseUrl: model.baseUrl, apiKey: KEY },
  });
  await writeConfigRow(database.prisma, row, 1, { ...config, guardrails: [GUARDRAIL] });
  engine = await startDatabaseEngine(database, row.agentId);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
}, 60_000);

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([model?.close(), database?.drop()]);
});

async function run(content: string) {
  const body = makeRunAgentInput(content);
  const sent = await postRawRun(engine.url, body);
  const record = (await (await fetch(`${engine.url}/agent/runs/${body.runId}`)).json()) as {
    status: string;
    usage: { input_tokens?: number; output_tokens?: number } | null;
    guardrail_actions: Record<string, unknown>[];
  };
  return { ...sent, record };
}

describe('a model_judge input rule', () => {
  it("asks the agent's provider under the rule's model, and a violation never reaches the agent's model", async () => {
    model.script({ text: ['{"violates": true}'] });
    const before = model.requests.length;
    const { events, record } = await run('What dose of aspirin should I take?');
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'guardrail_blocked' });
    const asked = model.requests.slice(before);
    expect(asked.map((request) => request.body.model)).toEqual(['judge-model']);
    expect(asked[0]?.authorization).toBe(`Bearer ${KEY}`);
    expect(asked[0]?.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining(RUBRIC) });
    expect(record.guardrail_actions).toEqual([
      expect.objectContaining({ rule: 'no-medical', kind: 'model_judge', found: 'judge', action: 'block' }),
    ]);
  });

  it('lets a message the judge passes go on to the agent, the judge counted in the run usage', async () => {
    model.script(
      { text: ['{"violates": false}'], usage: { prompt_tokens: 30, completion_tokens: 4 } },
      { text: ['Hello!'], usage: { prompt_tokens: 7, completion_tokens: 2 } },
    );
    const before = model.requests.length;
    const { events, record } = await run('Hello there');
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(model.requests.slice(before).map((request) => request.body.model)).toEqual(['judge-model', 'agent-model']);
    expect(record.usage).toMatchObject({ input_tokens: 37, output_tokens: 6 });
    expect(record.guardrail_actions).toEqual([]);
  });

  it('fails closed when the judge cannot answer: the run is blocked, the agent never asked', async () => {
    // The SDK tries a failed call twice.
    model.script({ status: 500, message: 'down' }, { status: 500, message: 'still down' });
    const before = model.requests.length;
    const { events } = await run('Hello again');
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'guardrail_blocked' });
    expect(model.requests.slice(before).every((request) => request.body.model === 'judge-model')).toBe(true);
    model.script({ text: ['no verdict here'] });
    expect((await run('And again')).events.at(-1)).toMatchObject({ code: 'guardrail_blocked' });
  });
});
