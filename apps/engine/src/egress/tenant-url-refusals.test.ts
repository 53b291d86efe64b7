// Every kind of tenant-chosen URL, through a real engine whose egress policy allows nothing: MCP over
// streamable HTTP, SSE and WebSocket, a model baseUrl (a redirect too), an SSO issuer's discovery and
// a JWKS. Each is refused at connect time (the policy logs the address it refused) and the loopback
// peers behind them never see a connection. The operator's own issuer is not the tenant's choice and
// is reached.
import { randomUUID } from 'node:crypto';
import { EventType, HttpAgent } from '@ag-ui/client';
import { type FakeOpenAiServer, makeRunAgentInput, startFakeOpenAiServer } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { type CapturedLogs, captureLogs, type LogLine } from '../testing/captured-logs.js';
import { type CountingServer, startCountingServer } from '../testing/counting-server.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { runWithClient } from '../testing/run-with-client.js';
import { startFileEngine } from '../testing/test-engine.js';

const NOTHING_ALLOWED = { ENGINE_EGRESS_ALLOW: '' };
const REFUSED = 'a connection to a tenant-chosen URL was refused by the egress policy';
const ERROR_ID = /\(error id ([0-9a-f-]{36})\)/;

type McpHealth = { name: string; status: string; error?: string; error_id?: string };

const refusedAddresses = (logs: CapturedLogs) =>
  logs
    .lines()
    .filter((line) => line.msg === REFUSED)
    .map((line: LogLine) => line.address);

function postRun(engine: RunningEngine, token: string) {
  return fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(makeRunAgentInput('hi')),
  });
}

describe('MCP servers', () => {
  let peer: CountingServer;
  let engine: RunningEngine;
  const logs = captureLogs();
  let mcp: McpHealth[];

  beforeAll(async () => {
    peer = await startCountingServer();
    // Five seconds bound a connection the policy failed to stop, so a broken policy fails here, not by hanging.
    const server = (name: string, transport: 'streamable_http' | 'sse' | 'websocket', url: string) => ({
      name,
      transport,
      url,
      timeoutSeconds: 5,
    });
    const config = makeLlmEngineConfig({
      mcpServers: [
        server('http', 'streamable_http', `${peer.origin}/mcp`),
        server('sse', 'sse', `${peer.origin}/sse`),
        server('websocket', 'websocket', `ws://127.0.0.1:${peer.port}/`),
        server('localhost', 'streamable_http', `http://localhost:${peer.port}/mcp`),
        server('mapped', 'streamable_http', `http://[::ffff:127.0.0.1]:${peer.port}/mcp`),
        server('metadata', 'streamable_http', 'http://169.254.169.254/mcp'),
        server('private', 'sse', 'http://10.0.0.1/sse'),
      ],
    });
    engine = await startFileEngine(config, { env: NOTHING_ALLOWED, logDestination: logs.destination });
    mcp = ((await (await fetch(`${engine.url}/health`)).json()) as { mcp: McpHealth[] }).mcp;
  });

  afterAll(async () => {
    await engine?.shutdown();
    await peer?.close();
  });

  it('are refused at connect time, over streamable HTTP, SSE and WebSocket, whatever the address form', () => {
    expect(mcp.map(({ name, status }) => ({ name, status }))).toEqual(
      ['http', 'sse', 'websocket', 'localhost', 'mapped', 'metadata', 'private'].map((name) => ({
        name,
        status: 'failed',
      })),
    );
    expect(new Set(refusedAddresses(logs))).toEqual(
      new Set(['127.0.0.1', '::ffff:7f00:1', '169.254.169.254', '10.0.0.1']),
    );
    expect(peer.connections()).toBe(0);
  });

  it('report a reason of ours and an error id in /health, the failure itself in the log under that id', () => {
    for (const { name, error, error_id: errorId } of mcp) {
      expect(error).toMatch(
        /^(Its address is refused by the engine's egress policy; the operator can allow it with ENGINE_EGRESS_ALLOW|It could not be connected)$/,
      );
      expect(logs.withErrorId(errorId ?? '')).toEqual([expect.objectContaining({ mcp_server: name })]);
    }
    expect(mcp.find((server) => server.name === 'http')?.error).toMatch(/egress policy.*ENGINE_EGRESS_ALLOW/);
  });
});

describe('a model baseUrl', () => {
  let model: FakeOpenAiServer;

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
  });

  afterAll(() => model?.close());

  async function runAgainst(baseUrl: string, env: Record<string, string>) {
    const logs = captureLogs();
    const config = makeLlmEngineConfig({ model: { provider: 'openai', name: 'fake-model', baseUrl } });
    const engine = await startFileEngine(config, { env, logDestination: logs.destination });
    try {
      const agent = new HttpAgent({
        url: `${engine.url}/agent/run`,
        initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
      });
      return { run: await runWithClient(agent), logs };
    } finally {
      await engine.shutdown();
    }
  }

  it('on loopback is refused: the run ends in RUN_ERROR and the model server gets nothing', async () => {
    const { run, logs } = await runAgainst(model.baseUrl, NOTHING_ALLOWED);
    expect(run.last).toMatchObject({ type: EventType.RUN_ERROR, code: 'model_error' });
    expect(String(run.last?.message)).toMatch(
      /^The model provider's address is refused by the engine's egress policy; .*ENGINE_EGRESS_ALLOW/,
    );
    expect(String(run.last?.message)).toMatch(ERROR_ID);
    expect(refusedAddresses(logs)).toContain('127.0.0.1');
    expect(model.requests).toHaveLength(0);
  });

  it('that redirects to the metadata address is refused at the redirect', async () => {
    const redirector = await startCountingServer({ redirectTo: 'http://169.254.169.254' });
    try {
      const { run, logs } = await runAgainst(`${redirector.origin}/v1`, { ENGINE_EGRESS_ALLOW: '127.0.0.1' });
      expect(run.last).toMatchObject({ type: EventType.RUN_ERROR, code: 'model_error' });
      expect(redirector.requests()).toBeGreaterThan(0);
      expect(refusedAddresses(logs)).toContain('169.254.169.254');
    } finally {
      await redirector.close();
    }
  });
});

describe('an SSO config', () => {
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await startTestIssuer();
  });

  afterAll(() => issuer?.close());

  async function expectRefused(sso: { issuer: string; audience: string; jwksUri?: string }, path: string) {
    const logs = captureLogs();
    const engine = await startFileEngine(makeLlmEngineConfig({ sso }), {
      env: { ...NOTHING_ALLOWED, ENGINE_AUTH: 'oidc' },
      logDestination: logs.destination,
    });
    try {
      const response = await postRun(engine, await issuer.sign({ iss: sso.issuer }));
      expect(response.status).toBe(503);
      const errorId = ERROR_ID.exec(((await response.json()) as { detail: string }).detail)?.[1] ?? '';
      expect(logs.withErrorId(errorId)).toHaveLength(1);
      expect(refusedAddresses(logs)).toContain('127.0.0.1');
      expect(issuer.hits(path)).toBe(0);
    } finally {
      await engine.shutdown();
    }
  }

  it('whose issuer is on loopback is refused at discovery', async () => {
    await expectRefused({ issuer: issuer.issuer, audience: issuer.audience }, '/.well-known/openid-configuration');
  });

  it('whose jwksUri is on loopback is refused at the JWKS fetch', async () => {
    const sso = { issuer: 'https://issuer.example', audience: issuer.audience, jwksUri: `${issuer.issuer}/jwks` };
    await expectRefused(sso, '/jwks');
  });

  it("does not stop the operator's own issuer (ENGINE_OIDC_*), which is reached on loopback", async () => {
    const engine = await startFileEngine(makeLlmEngineConfig(), {
      env: { ...NOTHING_ALLOWED, ENGINE_OIDC_ISSUER: issuer.issuer, ENGINE_OIDC_AUDIENCE: issuer.audience },
    });
    try {
      const response = await postRun(engine, await issuer.sign());
      expect(response.status).toBe(200);
      await response.text();
    } finally {
      await engine.shutdown();
    }
  });
});
