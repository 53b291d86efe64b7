import { describe, expect, it } from '@jest/globals';
import { ZEngineConfig } from '../engine/engine-config.js';
import {
  mapAgentConfigSecrets,
  mapEngineConfigSecrets,
  mapIntegrationSecrets,
  mapMcpServerSecrets,
  mapObservabilitySecrets,
} from './secret-fields.js';

const upper = (value: string) => value.toUpperCase();

describe('secret fields', () => {
  it('maps the WhatsApp tokens and app secret, and nothing else', () => {
    const integration = {
      provider: 'WHATSAPP' as const,
      enabled: true,
      config: { accessToken: 'at', verifyToken: 'vt', appSecret: 'as', phoneNumberId: 'p1', apiVersion: 'v21.0' },
    };
    expect(mapIntegrationSecrets(integration, upper).config).toEqual({
      accessToken: 'AT',
      verifyToken: 'VT',
      appSecret: 'AS',
      phoneNumberId: 'p1',
      apiVersion: 'v21.0',
    });
    expect(integration.config.accessToken).toBe('at');
  });

  it('leaves an absent optional secret absent', () => {
    const integration = {
      provider: 'WHATSAPP' as const,
      enabled: true,
      config: { accessToken: 'at', verifyToken: 'vt', phoneNumberId: 'p1', apiVersion: 'v21.0' },
    };
    expect(mapIntegrationSecrets(integration, upper).config).not.toHaveProperty('appSecret');
  });

  it('maps every MCP header and env value but not their names', () => {
    const server = { name: 'n', headers: { Authorization: 'bearer x' }, env: { API_KEY: 'k' }, command: 'c' };
    expect(mapMcpServerSecrets(server, upper)).toEqual({
      name: 'n',
      headers: { Authorization: 'BEARER X' },
      env: { API_KEY: 'K' },
      command: 'c',
    });
  });

  it('tells the transform where each secret is, so a value can be matched to the one stored in its place', () => {
    const seen: string[] = [];
    const record = (value: string, path: readonly string[]) => {
      seen.push(`${path.join('/')}=${value}`);
      return value;
    };
    mapIntegrationSecrets(
      {
        provider: 'WHATSAPP',
        config: { accessToken: 'at', verifyToken: 'vt', phoneNumberId: 'p1', apiVersion: 'v21.0' },
      },
      record,
    );
    mapMcpServerSecrets({ headers: { 'X-Key': 'h' }, env: { 'X-Key': 'e' } }, record);
    mapAgentConfigSecrets('LLM', { model: { provider: 'openai', name: 'gpt', apiKey: 'k' } }, record);
    expect(seen).toEqual([
      'config/accessToken=at',
      'config/verifyToken=vt',
      'headers/X-Key=h',
      'env/X-Key=e',
      'model/apiKey=k',
    ]);
  });

  it('maps the secrets of a whole engine config', () => {
    const config = ZEngineConfig.parse({
      agent: {
        id: '6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11',
        name: 'a',
        workspace_id: '0b9d8c7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e',
        framework: 'LLM',
        config: { model: { provider: 'mock', name: 'echo' } },
      },
      mcp_servers: [{ name: 'm', url: 'https://mcp.example.com', headers: { 'X-Key': 'k' } }],
      integrations: [
        {
          id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d',
          provider: 'WHATSAPP',
          config: { accessToken: 'a', phoneNumberId: '1', verifyToken: 'v' },
        },
      ],
      sso: null,
      observability: { provider: 'PHOENIX', endpoint: 'https://phoenix.example.com/v1/traces', api_key: 'px' },
    });
    const mapped = mapEngineConfigSecrets(config, () => '***');
    expect(mapped.mcp_servers[0]?.headers).toEqual({ 'X-Key': '***' });
    expect(mapped.observability).toMatchObject({ endpoint: 'https://phoenix.example.com/v1/traces', api_key: '***' });
    expect(mapped.integrations[0]?.config).toMatchObject({
      accessToken: '***',
      verifyToken: '***',
      phoneNumberId: '1',
    });
    expect(mapped.agent).toEqual(config.agent);
  });

  it("maps an LLM agent's model.apiKey, in the engine config and in a stored agent config", () => {
    const agent = {
      id: '6f1c1b5e-8a43-4b0c-9f7e-2d1f0c9a7b11',
      name: 'a',
      workspace_id: '0b9d8c7e-6f5a-4b3c-8d2e-1f0a9b8c7d6e',
      framework: 'LLM',
      config: { model: { provider: 'openai', name: 'gpt', apiKey: 'sk-1' } },
    };
    const config = ZEngineConfig.parse({ agent, mcp_servers: [], integrations: [], sso: null });
    expect(mapEngineConfigSecrets(config, upper).agent.config).toEqual({
      model: { provider: 'openai', name: 'gpt', apiKey: 'SK-1' },
      maxSteps: 10,
    });
    expect(mapAgentConfigSecrets('LLM', agent.config, upper)).toEqual({
      model: { provider: 'openai', name: 'gpt', apiKey: 'SK-1' },
    });
    expect(mapAgentConfigSecrets('LLM', { model: { provider: 'mock', name: 'echo' } }, upper)).toEqual({
      model: { provider: 'mock', name: 'echo' },
    });
    expect(mapAgentConfigSecrets('CUSTOM', { module: 'a.js:x' }, upper)).toEqual({ module: 'a.js:x' });
  });

  it("maps each observability provider's secrets, by path, and leaves the rest", () => {
    const seen: string[] = [];
    const record = (value: string, path: readonly string[]) => {
      seen.push(`${path.join('/')}=${value}`);
      return value.toUpperCase();
    };
    const otlp = mapObservabilitySecrets(
      {
        provider: 'OTLP',
        endpoint: 'https://otel.example.com/v1/traces',
        protocol: 'http/json',
        headers: { 'X-Api-Key': 'h1', Authorization: 'h2' },
        capture_content: false,
      },
      record,
    );
    const langfuse = mapObservabilitySecrets(
      {
        provider: 'LANGFUSE',
        host: 'https://cloud.langfuse.com',
        public_key: 'pk',
        secret_key: 'sk',
        capture_content: true,
      },
      record,
    );
    const phoenix = {
      provider: 'PHOENIX' as const,
      endpoint: 'https://p.example.com/v1/traces',
      capture_content: false,
    };
    expect(mapObservabilitySecrets(phoenix, record)).toEqual(phoenix);
    expect(mapObservabilitySecrets({ ...phoenix, api_key: 'ak' }, record)).toEqual({ ...phoenix, api_key: 'AK' });
    expect(otlp).toMatchObject({ headers: { 'X-Api-Key': 'H1', Authorization: 'H2' }, protocol: 'http/json' });
    expect(langfuse).toMatchObject({ public_key: 'pk', secret_key: 'SK', host: 'https://cloud.langfuse.com' });
    expect(seen).toEqual(['headers/X-Api-Key=h1', 'headers/Authorization=h2', 'secret_key=sk', 'api_key=ak']);
  });
});
