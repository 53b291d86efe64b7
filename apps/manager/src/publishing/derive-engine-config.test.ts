import { describe, expect, it } from '@jest/globals';
import { ZodError } from 'zod';
import { deriveEngineConfig } from './derive-engine-config.js';

const NO_BUDGETS = { agent: null, workspace: null, price: null };

const agent = {
  id: '6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11',
  name: 'support',
  description: 'Answers customers',
  workspaceId: '0b9d8c7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e',
  framework: 'LLM' as const,
  config: { model: { provider: 'mock', name: 'echo' }, maxSteps: 4 },
};
const whatsapp = {
  id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
  integration: {
    provider: 'WHATSAPP' as const,
    enabled: true,
    config: { accessToken: 'at', phoneNumberId: '1', verifyToken: 'vt', apiVersion: 'v21.0' },
  },
};

describe('deriveEngineConfig', () => {
  it('assembles the agent and its resources in the published shape', () => {
    const mcp = {
      name: 'tools',
      transport: 'stdio' as const,
      command: 'node',
      args: [],
      headers: {},
      env: {},
      encoding: 'utf-8',
      encodingErrorHandler: 'strict' as const,
      timeoutSeconds: 30,
      sseReadTimeoutSeconds: 300,
      terminateOnClose: true,
      sessionKwargs: {},
    };
    const sso = { enabled: true, issuer: 'https://id.example.com', audience: 'agents', algorithms: ['RS256' as const] };
    const observability = {
      provider: 'LANGFUSE' as const,
      host: 'https://cloud.langfuse.com',
      public_key: 'pk-lf-1',
      secret_key: 'sk-lf-1',
      capture_content: false,
    };
    const budgets = {
      agent: { limit: 1000, unit: 'tokens' as const, period: 'day' as const },
      workspace: null,
      price: { input_per_million_usd: 0.15, output_per_million_usd: 0.6 },
    };
    expect(
      deriveEngineConfig({
        agent,
        integrations: [whatsapp],
        mcpServers: [mcp],
        sso,
        observability,
        budgets,
        agentCalls: null,
        guardrails: [],
      }),
    ).toEqual({
      agent: {
        id: agent.id,
        name: 'support',
        description: 'Answers customers',
        workspace_id: agent.workspaceId,
        framework: 'LLM',
        config: agent.config,
      },
      mcp_servers: [mcp],
      integrations: [{ id: whatsapp.id, ...whatsapp.integration }],
      sso,
      observability,
      budgets,
      agent_calls: null,
      guardrails: [],
    });
  });

  it('refuses to publish an agent whose config does not fit its framework, naming what is wrong', () => {
    const derive = () =>
      deriveEngineConfig({
        agent: { ...agent, framework: 'CUSTOM' },
        integrations: [],
        mcpServers: [],
        sso: null,
        observability: null,
        budgets: NO_BUDGETS,
        agentCalls: null,
        guardrails: [],
      });
    expect(derive).toThrow(ZodError);
    expect(derive).toThrow(
      expect.objectContaining({
        issues: [
          expect.objectContaining({ code: 'invalid_type', path: ['agent', 'config', 'module'] }),
          expect.objectContaining({
            code: 'unrecognized_keys',
            path: ['agent', 'config'],
            keys: ['model', 'maxSteps'],
          }),
        ],
      }),
    );
  });
});
