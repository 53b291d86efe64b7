// The model judge against a real OpenAI-compatible server on loopback: the request it makes (the
// agent's base URL and key, the rule's model, the rubric as the system prompt, the text as the user
// message), the verdicts it reads, what it counts, and every way it gives no verdict (a non-verdict,
// a provider error, a tool call, an address the egress policy refuses).
import { randomUUID } from 'node:crypto';
import type { TLlmAgentConfig } from '@agentplane/contracts';
import { createLogger, ZEgressAllowList } from '@agentplane/server-kit';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { TokenUsage } from '../agents/agent-runtime.js';
import { createEgressPolicy, type EgressPolicy } from '../egress/egress-policy.js';
import { createLoopbackEgress } from '../testing/loopback-egress.js';
import { createModelJudge, parseVerdict } from './model-judge.js';

const logger = createLogger({ name: 'model-judge-test', level: 'silent' });
const KEY = `sk-agent-${randomUUID()}`;
const RUBRIC = 'No talk of the weather.';
const NEVER = new AbortController().signal;

let server: FakeOpenAiServer;
let egress: EgressPolicy;
let refusingEgress: EgressPolicy;

beforeAll(async () => {
  server = await startFakeOpenAiServer();
  egress = createLoopbackEgress();
  refusingEgress = createEgressPolicy({ allow: ZEgressAllowList.parse(''), onRefused: () => {} });
});

afterEach(() => {
  server.requests.length = 0;
});

afterAll(async () => {
  await Promise.all([server?.close(), egress?.close(), refusingEgress?.close()]);
});

function agentModel(overrides: Partial<TLlmAgentConfig> = {}): TLlmAgentConfig {
  return {
    model: { provider: 'openai', name: 'agent-model', baseUrl: server.baseUrl, apiKey: KEY },
    maxSteps: 5,
    temperature: 1.7,
    ...overrides,
  };
}

const noOperatorKeys = {
  operatorApiKey: undefined,
  operatorBaseUrl: 'https://api.openai.com/v1',
  keyVariables: new Map(),
};

function judgeWith(config: TLlmAgentConfig, policy = egress) {
  const counted: TokenUsage[] = [];
  const judge = createModelJudge(config, {
    models: noOperatorKeys,
    logger,
    egressFetch: policy.fetch,
    countUsage: (usage) => counted.push(usage),
  });
  return { judge, counted };
}

describe('the model judge', () => {
  it("asks the agent's provider with its key, under the rule's model, the rubric as system prompt and the text as the user message", async () => {
    server.script({ text: ['{"viol', 'ates": true}'], usage: { prompt_tokens: 40, completion_tokens: 5 } });
    const { judge, counted } = judgeWith(agentModel());
    await expect(judge({ rubric: RUBRIC, model: 'judge-model', text: 'Sunny tomorrow?' }, NEVER)).resolves.toBe(true);
    const [request] = server.requests;
    expect(request?.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.body.model).toBe('judge-model');
    expect(request?.body.tools).toBeUndefined();
    // The agent's temperature is for its replies, not for verdicts.
    expect(request?.body.temperature).toBeUndefined();
    expect(request?.body.messages).toEqual([
      { role: 'system', content: expect.stringContaining(RUBRIC) },
      { role: 'user', content: 'Sunny tomorrow?' },
    ]);
    expect(counted).toEqual([{ inputTokens: 40, outputTokens: 5, model: 'openai/judge-model' }]);
  });

  it("uses the agent's own model when the rule names none, and reads a fenced verdict", async () => {
    server.script({ text: ['```json\n{"violates": false}\n```'] });
    const { judge } = judgeWith(agentModel());
    await expect(judge({ rubric: RUBRIC, model: undefined, text: 'Hello' }, NEVER)).resolves.toBe(false);
    expect(server.requests[0]?.body.model).toBe('agent-model');
  });

  it('rejects an answer that is no verdict, a provider error and a tool call: the rule decides what that means', async () => {
    const { judge } = judgeWith(agentModel());
    const request = { rubric: RUBRIC, model: undefined, text: 'Hello' };
    server.script({ text: ['Yes, it does.'] });
    await expect(judge(request, NEVER)).rejects.toThrow(/verdict/);
    server.script({ text: ['{"violates": "yes"}'] });
    await expect(judge(request, NEVER)).rejects.toThrow(/verdict/);
    server.script({ status: 500, message: 'overloaded' });
    await expect(judge(request, NEVER)).rejects.toThrow(/model provider failed/);
    server.script({ toolCalls: [{ id: 'call_1', name: 'lookup', arguments: ['{}'] }] });
    await expect(judge(request, NEVER)).rejects.toThrow(/tool/);
    server.script({ text: ['{"violates": false}', ' '.repeat(3000)] });
    await expect(judge(request, NEVER)).rejects.toThrow(/at length/);
  });

  it("goes through the egress policy for the tenant's base URL: a refused address is never called", async () => {
    const { judge } = judgeWith(agentModel(), refusingEgress);
    await expect(judge({ rubric: RUBRIC, model: undefined, text: 'Hello' }, NEVER)).rejects.toThrow(/egress policy/);
    expect(server.requests).toHaveLength(0);
  });

  it('rejects at once when the run is aborted', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const { judge } = judgeWith(agentModel());
    await expect(judge({ rubric: RUBRIC, model: undefined, text: 'Hello' }, aborted.signal)).rejects.toThrow();
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a key variable the operator did not allow, as the agent does: no request leaves', async () => {
    const { judge } = judgeWith(
      agentModel({ model: { provider: 'openai', name: 'm', baseUrl: server.baseUrl, apiKeyEnv: 'NOT_ALLOWED_KEY' } }),
    );
    await expect(judge({ rubric: RUBRIC, model: undefined, text: 'Hello' }, NEVER)).rejects.toThrow(/not available/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('parseVerdict', () => {
  it('reads only a JSON object with a boolean `violates`', () => {
    expect(parseVerdict(' {"violates": true} ')).toBe(true);
    expect(parseVerdict('```\n{"violates":false}\n```')).toBe(false);
    for (const answer of ['', 'true', 'null', '[]', '{"violates": 1}', '{"verdict": true}', 'violates']) {
      expect(() => parseVerdict(answer)).toThrow(/verdict/);
    }
  });
});
