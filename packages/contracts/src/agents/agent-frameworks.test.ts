import { describe, expect, it } from '@jest/globals';
import { ZCustomAgentConfig, ZLangGraphAgentConfig, ZLlmAgentConfig } from './agent-frameworks.js';

describe('ZLlmAgentConfig', () => {
  it('accepts a minimal model and defaults maxSteps', () => {
    expect(ZLlmAgentConfig.parse({ model: { provider: 'mock', name: 'echo' } })).toEqual({
      model: { provider: 'mock', name: 'echo' },
      maxSteps: 10,
    });
  });

  it('checks provider, baseUrl, apiKeyEnv, temperature and maxSteps', () => {
    const bad = [
      [{ model: { provider: 'acme', name: 'x' } }, 'model.provider'],
      [{ model: { provider: 'openai', name: 'x', baseUrl: 'ftp://x' } }, 'model.baseUrl'],
      [{ model: { provider: 'openai', name: 'x', apiKeyEnv: 'sk-live-123' } }, 'model.apiKeyEnv'],
      [{ model: { provider: 'openai', name: 'x' }, temperature: 3 }, 'temperature'],
      [{ model: { provider: 'openai', name: 'x' }, maxSteps: 0 }, 'maxSteps'],
      [{ model: { provider: 'openai', name: ' ' } }, 'model.name'],
    ] as const;
    for (const [input, path] of bad) {
      const result = ZLlmAgentConfig.safeParse(input);
      expect(result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'))).toEqual([path]);
    }
  });
});

describe('module references', () => {
  it('accept path.js:export and refuse anything else', () => {
    expect(ZLangGraphAgentConfig.safeParse({ graph: 'graphs/support.js:graph' }).success).toBe(true);
    expect(ZCustomAgentConfig.safeParse({ module: './agents/a.mjs:createAgent' }).success).toBe(true);
    expect(ZLangGraphAgentConfig.safeParse({ graph: 'graphs/support.js' }).success).toBe(false);
    expect(ZCustomAgentConfig.safeParse({ module: 'a.ts:x' }).success).toBe(false);
    expect(ZCustomAgentConfig.safeParse({ module: 'a.js:1x' }).success).toBe(false);
  });

  it.each([
    ['an absolute path', '/opt/agents/a.mjs:createAgent', /relative path/],
    ['a path that climbs out', '../agents/a.js:createAgent', /"\.\."/],
    ['a .. segment in the middle', 'agents/../../etc/a.js:createAgent', /"\.\."/],
    ['a path into node_modules', 'node_modules/pkg/index.js:createAgent', /node_modules/],
    ['node_modules further down', 'agents/node_modules/pkg/index.js:graph', /node_modules/],
    ['backslash separators', '..\\agents\\a.js:createAgent', /relative path/],
  ])('refuse %s', (_case, reference, message) => {
    const result = ZCustomAgentConfig.safeParse({ module: reference });
    expect(result.success ? [] : result.error.issues).toEqual([
      expect.objectContaining({ path: ['module'], message: expect.stringMatching(message) }),
    ]);
  });

  it('accept a file whose name merely contains dots or node_modules', () => {
    expect(ZLangGraphAgentConfig.safeParse({ graph: 'graphs/..hidden/my.node_modules.js:graph' }).success).toBe(true);
  });
});

describe('model keys', () => {
  it('take an apiKey of the agent or an apiKeyEnv, not both', () => {
    const model = { provider: 'openai', name: 'x' };
    expect(ZLlmAgentConfig.safeParse({ model: { ...model, apiKey: 'sk-1' } }).success).toBe(true);
    const both = ZLlmAgentConfig.safeParse({ model: { ...model, apiKey: 'sk-1', apiKeyEnv: 'GROQ_KEY' } });
    expect(both.success ? [] : both.error.issues.map((issue) => issue.path.join('.'))).toEqual(['model.apiKeyEnv']);
    expect(ZLlmAgentConfig.safeParse({ model: { ...model, apiKey: '' } }).success).toBe(false);
  });
});

describe('runs.multitaskStrategy', () => {
  it('defaults to reject, accepts the four strategies and refuses anything else', () => {
    expect(ZCustomAgentConfig.parse({ module: 'a.js:x', runs: {} }).runs).toEqual({ multitaskStrategy: 'reject' });
    for (const multitaskStrategy of ['reject', 'enqueue', 'interrupt', 'rollback']) {
      expect(ZLangGraphAgentConfig.safeParse({ graph: 'g.js:g', runs: { multitaskStrategy } }).success).toBe(true);
    }
    const bad = ZLlmAgentConfig.safeParse({
      model: { provider: 'mock', name: 'x' },
      runs: { multitaskStrategy: 'queue' },
    });
    expect(bad.success ? [] : bad.error.issues.map((issue) => issue.path.join('.'))).toEqual([
      'runs.multitaskStrategy',
    ]);
  });
});
