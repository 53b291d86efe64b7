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
    expect(ZCustomAgentConfig.safeParse({ module: '/opt/agents/a.mjs:createAgent' }).success).toBe(true);
    expect(ZLangGraphAgentConfig.safeParse({ graph: 'graphs/support.js' }).success).toBe(false);
    expect(ZCustomAgentConfig.safeParse({ module: 'a.ts:x' }).success).toBe(false);
    expect(ZCustomAgentConfig.safeParse({ module: 'a.js:1x' }).success).toBe(false);
  });
});
