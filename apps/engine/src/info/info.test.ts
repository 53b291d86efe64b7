import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScratchDirs } from '@agentplane/db/testing';
import { ConfigError } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { stringify } from 'yaml';
import type { RunningEngine } from '../start-engine.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { ALLOW_EVERYTHING_STDIO, everythingStdioServer } from '../testing/everything-server.js';
import { holdRefusingPort, type RefusingPort } from '../testing/refusing-port.js';
import { startFileEngine, startTestEngine } from '../testing/test-engine.js';

const INTEGRATION_ID = randomUUID();
let engine: RunningEngine;
let offline: RefusingPort;

beforeAll(async () => {
  offline = await holdRefusingPort();
  const config = makeLlmEngineConfig({
    name: 'support',
    // A query in a URL is a secret: API keys ride there.
    model: { provider: 'mock', name: 'echo', baseUrl: 'https://llm.example.com/v1?key=model-query-secret' },
    mcpServers: [
      everythingStdioServer({ env: { API_TOKEN: 'env-secret' } }),
      {
        name: 'offline',
        transport: 'streamable_http',
        url: `${offline.origin}/mcp?api_key=mcp-query-secret`,
        headers: { Authorization: 'Bearer header-secret' },
      },
    ],
  });
  engine = await startFileEngine(
    {
      ...config,
      integrations: [
        {
          id: INTEGRATION_ID,
          provider: 'WHATSAPP',
          enabled: true,
          config: {
            accessToken: 'EAAG-token',
            phoneNumberId: '1234',
            verifyToken: 'verify-me',
            appSecret: 'app-secret',
          },
        },
      ],
      // A port that refuses connections: whatever exports traces there fails at once.
      observability: {
        provider: 'OTLP',
        endpoint: `${offline.origin}/v1/traces?key=trace-query-secret`,
        headers: { Authorization: 'Bearer trace-secret' },
      },
    },
    { env: ALLOW_EVERYTHING_STDIO },
  );
});

const scratch = new ScratchDirs();

afterAll(async () => {
  await engine?.shutdown();
  await offline?.release();
  await scratch.removeAll();
});

describe('GET /', () => {
  it('describes the service, its agent and its endpoints', async () => {
    const body = await (await fetch(`${engine.url}/`)).json();
    expect(body).toEqual({
      service: 'agentplane-engine',
      agent: { id: expect.any(String), name: 'support', framework: 'LLM' },
      config_version: 1,
      endpoints: {
        health: '/health',
        run: '/agent/run',
        runs: '/agent/runs',
        config: '/agent/config',
        capabilities: '/agent/capabilities',
        threads: '/agent/threads',
        mcp: '/mcp',
        a2a: '/a2a',
        agent_card: '/.well-known/agent-card.json',
        openapi: '/openapi.json',
      },
    });
  });
});

describe('GET /health', () => {
  it('is degraded and names the MCP server that could not be reached', async () => {
    const response = await fetch(`${engine.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'degraded',
      config_version: 1,
      db: 'not_used',
      mcp: [
        { name: 'everything', status: 'connected' },
        { name: 'offline', status: 'failed', error: 'It could not be connected', error_id: expect.any(String) },
      ],
      integrations: [{ id: INTEGRATION_ID, provider: 'WHATSAPP', deliveries: 'signature_required' }],
    });
  });
});

describe('GET /agent/config', () => {
  it('shows the config with every secret redacted and the rest intact', async () => {
    const response = await fetch(`${engine.url}/agent/config`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-engine-config-version')).toBe('1');
    const text = await response.clone().text();
    for (const secret of [
      'EAAG-token',
      'verify-me',
      'app-secret',
      'env-secret',
      'header-secret',
      'trace-secret',
      'model-query-secret',
      'mcp-query-secret',
      'trace-query-secret',
    ]) {
      expect(text).not.toContain(secret);
    }
    const body = (await response.json()) as {
      agent: { config: { model: { baseUrl: string } } };
      observability: { protocol: string; endpoint: string; headers: Record<string, string> };
      integrations: { config: Record<string, string> }[];
      mcp_servers: { name: string; url?: string; env: Record<string, string>; headers: Record<string, string> }[];
    };
    expect(body.integrations[0]?.config).toMatchObject({
      accessToken: '[redacted]',
      verifyToken: '[redacted]',
      appSecret: '[redacted]',
      phoneNumberId: '1234',
    });
    expect(body.mcp_servers[0]?.env).toEqual({ API_TOKEN: '[redacted]' });
    expect(body.mcp_servers[1]).toMatchObject({
      url: `${offline.origin}/mcp?[redacted]`,
      headers: { Authorization: '[redacted]' },
    });
    expect(body.observability).toMatchObject({
      protocol: 'http/protobuf',
      endpoint: `${offline.origin}/v1/traces?[redacted]`,
      headers: { Authorization: '[redacted]' },
    });
    expect(body.agent.config.model.baseUrl).toBe('https://llm.example.com/v1?[redacted]');
  });
});

describe('GET /agent/capabilities', () => {
  it('gives the framework, streaming, input/output modes with schemas, and the AG-UI capability fields', async () => {
    const body = (await (await fetch(`${engine.url}/agent/capabilities`)).json()) as Record<string, unknown> & {
      tools: { items: { name: string }[] };
      input: { schema: { properties: Record<string, unknown> } };
    };
    expect(body).toMatchObject({
      framework: 'LLM',
      supported: true,
      streaming: true,
      identity: { name: 'support' },
      transport: { streaming: true, httpBinary: true },
      tools: { supported: true, clientProvided: true },
      execution: { maxIterations: 10 },
      input: { mode: 'ag-ui', content_type: 'application/json' },
      output: { mode: 'ag-ui-events', content_types: ['text/event-stream', 'application/vnd.ag-ui.event+proto'] },
    });
    expect(body.tools.items.map((tool) => tool.name)).toContain('everything__echo');
    expect(Object.keys(body.input.schema.properties)).toEqual(
      expect.arrayContaining(['threadId', 'runId', 'messages']),
    );
  });
});

describe('file mode', () => {
  async function writeText(name: string, text: string): Promise<string> {
    const file = path.join(await scratch.make('engine-file-'), name);
    await writeFile(file, text);
    return file;
  }

  it('serves a YAML config', async () => {
    const file = await writeText('agent.yaml', stringify(makeLlmEngineConfig({ name: 'from yaml' })));
    const yamlEngine = await startTestEngine({ ENGINE_CONFIG_FILE: file });
    try {
      const body = (await (await fetch(`${yamlEngine.url}/`)).json()) as { agent: { name: string } };
      expect(body.agent.name).toBe('from yaml');
    } finally {
      await yamlEngine.shutdown();
    }
  });

  it('serves the example config shipped with the engine', async () => {
    const example = fileURLToPath(new URL('../../examples/mock-agent.yaml', import.meta.url));
    const exampleEngine = await startTestEngine({ ENGINE_CONFIG_FILE: example });
    try {
      const body = (await (await fetch(`${exampleEngine.url}/`)).json()) as { agent: { name: string } };
      expect(body.agent.name).toBe('Mock agent');
    } finally {
      await exampleEngine.shutdown();
    }
  });

  it('refuses to start on a config file that is invalid or missing, saying why', async () => {
    const invalid = await writeText('agent.json', JSON.stringify({ agent: { framework: 'LLM' } }));
    await expect(startTestEngine({ ENGINE_CONFIG_FILE: invalid })).rejects.toThrow(ConfigError);
    await expect(startTestEngine({ ENGINE_CONFIG_FILE: invalid })).rejects.toThrow(/agent\.id/);
    await expect(startTestEngine({ ENGINE_CONFIG_FILE: '/nonexistent/agent.yaml' })).rejects.toThrow(/cannot be read/);
  });
});
