import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ZLlmAgentConfig } from '../agents/agent-frameworks.js';
import { ZMcpServerConfig } from '../mcp-servers/mcp-server-config.js';
import { ZObservabilityConfig } from '../observability/observability-config.js';
import { mapLlmConfigSecrets, mapMcpServerSecrets, mapObservabilitySecrets } from './secret-fields.js';
import { maskSecret } from './secret-mask.js';
import { makeSecretQueryUrl, mapUrlQuerySecret } from './secret-url.js';

const seal = (value: string) => `enc:v1:k:${Buffer.from(value).toString('base64url')}`;
const pathsOf = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  result.error?.issues.map((issue) => issue.path.join('.')) ?? [];

describe('the query of a URL an engine connects to', () => {
  it('is the secret part: what follows the first ? (or #), the origin and path left as they are', () => {
    const upper = (value: string) => value.toUpperCase();
    expect(mapUrlQuerySecret('https://mcp.example.com/mcp?api_key=k1&x=1', ['url'], upper)).toBe(
      'https://mcp.example.com/mcp?API_KEY=K1&X=1',
    );
    expect(mapUrlQuerySecret('https://mcp.example.com/mcp#token=t', ['url'], upper)).toBe(
      'https://mcp.example.com/mcp#TOKEN=T',
    );
    for (const url of ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp?']) {
      expect(mapUrlQuerySecret(url, ['url'], () => 'never')).toBe(url);
    }
  });

  it('is masked, sealed and redacted in MCP servers, model baseUrls and trace endpoints, each at its own path', () => {
    const seen: string[] = [];
    const record = (value: string, path: readonly string[]) => {
      seen.push(`${path.join('/')}=${value}`);
      return maskSecret(value);
    };
    const server = mapMcpServerSecrets({ url: 'https://mcp.example.com/mcp?api_key=k1', headers: {}, env: {} }, record);
    const llm = mapLlmConfigSecrets(
      { model: { provider: 'openai', name: 'm', baseUrl: 'https://llm.example/v1?key=k2' } },
      record,
    );
    const otlp = mapObservabilitySecrets(
      {
        provider: 'OTLP',
        endpoint: 'https://otel.example/v1/traces?k=3',
        protocol: 'http/json',
        headers: {},
        capture_content: false,
      },
      record,
    );
    const phoenix = mapObservabilitySecrets(
      { provider: 'PHOENIX', endpoint: 'https://px.example/v1/traces?k=4', capture_content: false },
      record,
    );
    expect(server.url).toBe('https://mcp.example.com/mcp?••••••••');
    expect(llm.model.baseUrl).toBe('https://llm.example/v1?••••••••');
    expect(otlp).toMatchObject({ endpoint: 'https://otel.example/v1/traces?••••••••' });
    expect(phoenix).toMatchObject({ endpoint: 'https://px.example/v1/traces?••••••••' });
    expect(seen).toEqual(['url=api_key=k1', 'model/baseUrl=key=k2', 'endpoint=k=3', 'endpoint=k=4']);
  });

  it('still validates once sealed, though the sealed form is longer than a URL may be', () => {
    const long = `https://mcp.example.com/mcp?api_key=${'k'.repeat(2000)}`;
    const sealed = mapUrlQuerySecret(long, ['url'], seal);
    expect(sealed.length).toBeGreaterThan(2048);
    expect(ZMcpServerConfig.safeParse({ name: 'm', url: sealed }).success).toBe(true);
    expect(ZMcpServerConfig.safeParse({ name: 'm', url: `${long}${'k'.repeat(100)}` }).success).toBe(false);
    const baseUrl = mapUrlQuerySecret('https://llm.example/v1?key=k2', ['model', 'baseUrl'], seal);
    expect(ZLlmAgentConfig.safeParse({ model: { provider: 'openai', name: 'm', baseUrl } }).success).toBe(true);
  });

  it('takes the mask a viewer was shown, which a PATCH sends back to keep the stored query', () => {
    const masked = 'https://mcp.example.com/mcp?••••••••';
    expect(ZMcpServerConfig.safeParse({ name: 'm', url: masked }).success).toBe(true);
    const model = { provider: 'openai', name: 'm', baseUrl: 'https://llm.example/v1?••••••••ab12' };
    expect(ZLlmAgentConfig.safeParse({ model }).success).toBe(true);
  });
});

describe('a user name or password in a URL an engine connects to', () => {
  it.each([
    ['an MCP url', ZMcpServerConfig, { name: 'm', url: 'https://user:pw@mcp.example.com/mcp' }, 'url'],
    ['an MCP url with a user only', ZMcpServerConfig, { name: 'm', url: 'https://token@mcp.example.com/' }, 'url'],
    [
      'a model baseUrl',
      ZLlmAgentConfig,
      { model: { provider: 'openai', name: 'm', baseUrl: 'https://u:p@llm.example/v1' } },
      'model.baseUrl',
    ],
    ['an OTLP endpoint', ZObservabilityConfig, { provider: 'OTLP', endpoint: 'https://u:p@otel.example/' }, 'endpoint'],
    [
      'a Phoenix endpoint',
      ZObservabilityConfig,
      { provider: 'PHOENIX', endpoint: 'http://:p@px.example/' },
      'endpoint',
    ],
  ])('is refused in %s, naming the field', (_what, schema: z.ZodType, body, path) => {
    expect(pathsOf(schema.safeParse(body))).toEqual([path]);
  });

  it('is refused even when the rest is sealed', () => {
    expect(makeSecretQueryUrl(z.string()).safeParse(`https://u:p@h.example/?${seal('k')}`).success).toBe(false);
  });
});

describe('a Langfuse host, to which the traces path is appended', () => {
  it('has no query, fragment or user name', () => {
    const langfuse = { provider: 'LANGFUSE', public_key: 'pk', secret_key: 'sk' };
    expect(ZObservabilityConfig.safeParse({ ...langfuse, host: 'https://cloud.langfuse.com/base' }).success).toBe(true);
    for (const host of [
      'https://cloud.langfuse.com/?k=1',
      'https://cloud.langfuse.com/#x',
      'https://u:p@cloud.langfuse.com',
    ]) {
      expect(pathsOf(ZObservabilityConfig.safeParse({ ...langfuse, host }))).toEqual(['host']);
    }
  });
});
