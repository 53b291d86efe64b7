import { describe, expect, it } from '@jest/globals';
import { ZAgentCreate } from './agent.js';

const id1 = '6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11';
const id2 = '0b9d8c7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e';
const llm = { name: 'support', framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } };

function pathsOf(input: unknown): string[] {
  const result = ZAgentCreate.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('ZAgentCreate', () => {
  it('defaults the resources to none', () => {
    expect(ZAgentCreate.parse(llm).resources).toEqual({
      integration_ids: [],
      mcp_server_ids: [],
      guardrail_ids: [],
      sso_id: null,
      observability_id: null,
    });
  });

  it('validates the agent object against its framework', () => {
    expect(pathsOf({ ...llm, framework: 'LANGGRAPH' })).toEqual(['agent.graph', 'agent']);
    expect(pathsOf({ name: 'g', framework: 'LANGGRAPH', agent: { graph: 'g.js:graph' } })).toEqual([]);
    expect(pathsOf({ ...llm, framework: 'AUTOGEN' })).toEqual(['framework']);
  });

  it('rejects duplicate ids, naming the repeated one', () => {
    expect(pathsOf({ ...llm, resources: { integration_ids: [id1, id2, id1] } })).toEqual([
      'resources.integration_ids.2',
    ]);
  });

  it('rejects ids that are not UUIDs and unknown fields', () => {
    expect(pathsOf({ ...llm, resources: { mcp_server_ids: ['nope'] } })).toEqual(['resources.mcp_server_ids.0']);
    expect(pathsOf({ ...llm, resources: { sso_id: 'nope' } })).toEqual(['resources.sso_id']);
    expect(pathsOf({ ...llm, resources: { observability_id: 'nope' } })).toEqual(['resources.observability_id']);
    expect(pathsOf({ ...llm, owner: 'x' })).toEqual(['']);
  });
});

describe('engine_url', () => {
  it('is an http(s) origin with an optional path', () => {
    for (const url of ['http://127.0.0.1:8001', 'https://engines.example.com/agents/a1/']) {
      expect(pathsOf({ ...llm, engine_url: url })).toEqual([]);
    }
  });

  // The playground appends /agent/run: behind a query or fragment that is any path of any origin.
  it.each([
    ['a query', 'http://manager.example/api/v1/agents/x/engine-credentials?x='],
    ['an empty query', 'https://engine.example/?'],
    ['a fragment', 'https://engine.example/api/v1/auth/logout-all#'],
    ['a user name and password', 'https://user:pw@engine.example'],
  ])('refuses one with %s', (_what, url) => {
    expect(pathsOf({ ...llm, engine_url: url })).toEqual(['engine_url']);
  });
});
