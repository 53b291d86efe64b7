import { describe, expect, it } from '@jest/globals';
import { ZEngineConfig } from './engine-config.js';

const agentId = '6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11';
const workspaceId = '0b9d8c7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e';
const integrationId = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';

const config = {
  agent: {
    id: agentId,
    name: 'support',
    workspace_id: workspaceId,
    framework: 'LLM',
    config: { model: { provider: 'mock', name: 'echo' } },
  },
  mcp_servers: [{ name: 'everything', transport: 'stdio', command: 'npx' }],
  integrations: [
    {
      id: integrationId,
      provider: 'WHATSAPP',
      enabled: true,
      config: { accessToken: 'a', phoneNumberId: '1', verifyToken: 'v' },
    },
  ],
  sso: null,
};

describe('ZEngineConfig', () => {
  it('parses a full config and fills in the defaults of every part', () => {
    const parsed = ZEngineConfig.parse(config);
    expect(parsed.agent.config).toMatchObject({ maxSteps: 10 });
    expect(parsed.mcp_servers[0]).toMatchObject({ timeoutSeconds: 30, args: [] });
    expect(parsed.integrations[0]?.config).toMatchObject({ apiVersion: 'v21.0' });
  });

  it('checks the agent config against its framework', () => {
    const mismatched = { ...config, agent: { ...config.agent, framework: 'CUSTOM' } };
    const result = ZEngineConfig.safeParse(mismatched);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain('agent.config.module');
  });

  it('requires the id of every integration and rejects unknown fields', () => {
    const { id: _id, ...withoutId } = config.integrations[0] as Record<string, unknown>;
    expect(ZEngineConfig.safeParse({ ...config, integrations: [withoutId] }).success).toBe(false);
    expect(ZEngineConfig.safeParse({ ...config, extra: 1 }).success).toBe(false);
  });
});
