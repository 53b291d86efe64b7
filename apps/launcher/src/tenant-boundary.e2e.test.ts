// A tenant plays the attacker against a manager and an engine run as separate processes, signed up
// through the API like anyone: what it may make the engine execute (stdio commands, agent modules)
// and which of the engine's credentials it may reach through a model it configures.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { engineEnvFor } from './testing/engine-env.js';
import { ServiceProcesses } from './testing/service-processes.js';

type Problem = { status: number; detail: string; errors?: { path: string; message: string }[] };
type Health = { config_version: number; mcp: { name: string; status: string; error?: string; error_id?: string }[] };

const EVERYTHING = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const PERMITTED = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const SECRETS_KEY = randomBytes(32).toString('base64');
const OPERATOR_KEY = `sk-operator-${randomUUID()}`;

const services = new ServiceProcesses();
let database: TestDatabase;
let capture: FakeOpenAiServer;
let operatorModel: FakeOpenAiServer;
let scratch: string;
let api: ManagerClient;
let operator: Record<string, string>;

beforeAll(async () => {
  [database, capture, operatorModel] = await Promise.all([
    createTestDatabase(),
    startFakeOpenAiServer(),
    startFakeOpenAiServer(),
  ]);
  scratch = await mkdtemp(path.join(tmpdir(), 'tenant-boundary-'));
  // What the operator gives both services: the one permitted stdio command line, its model key. The
  // platform's DATABASE_URL and SECRETS_KEY go to the manager only; each engine gets its agent's credentials.
  operator = {
    MCP_STDIO_COMMANDS: JSON.stringify([PERMITTED]),
    OPENAI_API_KEY: OPERATOR_KEY,
    OPENAI_BASE_URL: operatorModel.baseUrl,
  };
  const managerUrl = await services.start('manager', {
    ...operator,
    DATABASE_URL: database.url,
    SECRETS_KEY,
    SESSION_SECRET: randomBytes(32).toString('base64'),
    // The tenant's model server in these tests is a loopback peer.
    EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
  });
  // The tenant signs up, which makes it its workspace's owner: it may ask for its agents' engine credentials.
  api = await ManagerClient.signUp(managerUrl);
});

/** An engine for the agent, with the operator's settings and the credentials the manager issues for it. */
async function startEngine(agentId: string) {
  const credentials = await engineEnvFor(api, agentId);
  const url = await services.start('engine', {
    ...operator,
    ...credentials,
    ENGINE_AUTH: 'disabled',
    ENGINE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
  });
  return { url, credentials };
}

afterAll(async () => {
  await services.stopAll();
  await Promise.all([capture?.close(), operatorModel?.close(), database?.drop()]);
  await rm(scratch, { recursive: true, force: true });
});

async function expectRefused(method: string, route: string, body: unknown, setting: string | undefined, field: string) {
  const response = await api.request<Problem>(method, route, body);
  expect(response.status).toBe(422);
  if (setting !== undefined) expect(response.body.detail).toContain(setting);
  expect(response.body.errors?.map((error) => error.path)).toEqual([field]);
}

const llmAgent = (model: Record<string, unknown>, mcpServerIds: string[] = []) => ({
  name: `agent-${randomUUID().slice(0, 8)}`,
  framework: 'LLM',
  agent: { model: { provider: 'openai', name: 'gpt-4o-mini', ...model } },
  resources: { mcp_server_ids: mcpServerIds },
});

describe('a tenant against the operator policy', () => {
  it('cannot make the engine run a command of its own, through the manager or around it', async () => {
    const marker = path.join(scratch, 'spawned');
    const shell = { name: 'sh', transport: 'stdio', command: '/bin/sh', args: ['-c', `touch ${marker}`] };
    await expectRefused(
      'POST',
      '/mcp-servers/',
      { name: 'sh', mcp_server: shell },
      'MCP_STDIO_COMMANDS',
      'mcp_server.command',
    );
    const interpreter = { ...shell, command: process.execPath, args: ['-e', 'process.exit()'] };
    await expectRefused(
      'POST',
      '/mcp-servers/',
      { name: 'node', mcp_server: interpreter },
      'MCP_STDIO_COMMANDS',
      'mcp_server.command',
    );
    const preload = { ...shell, ...PERMITTED, env: { NODE_OPTIONS: `--require=${marker}` } };
    await expectRefused(
      'POST',
      '/mcp-servers/',
      { name: 'preload', mcp_server: preload },
      undefined,
      'mcp_server.env.NODE_OPTIONS',
    );

    // The permitted server is accepted and runs; then the tenant's row is rewritten around the manager.
    const everything = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
      name: 'everything',
      mcp_server: { name: 'everything', transport: 'stdio', ...PERMITTED },
    });
    const agent = await api.expect<{ id: string; engine_config: { mcp_servers: object[] } }>(201, 'POST', '/agents/', {
      ...llmAgent({}, [everything.id]),
      agent: { model: { provider: 'mock', name: 'echo' } },
    });
    const { url: engineUrl } = await startEngine(agent.id);
    const health = async () => (await (await fetch(`${engineUrl}/health`)).json()) as Health;
    await waitUntil(async () => (await fetch(`${engineUrl}/health`)).ok, { what: 'the engine to serve its config' });
    expect((await health()).mcp).toEqual([{ name: 'everything', status: 'connected' }]);

    const tampered = { ...agent.engine_config, mcp_servers: [...agent.engine_config.mcp_servers, shell] };
    await database.prisma.engineConfig.update({
      where: { agentId: agent.id },
      data: { config: tampered, version: { increment: 1 } },
    });
    await waitUntil(async () => (await health()).config_version === 2, { what: 'the rewritten config to be applied' });
    expect((await health()).mcp).toEqual([
      { name: 'everything', status: 'connected' },
      {
        name: 'sh',
        status: 'failed',
        error: expect.stringContaining('MCP_STDIO_COMMANDS'),
        error_id: expect.any(String),
      },
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it("cannot name the engine's variables for its model, nor receive the operator's key at its own baseUrl", async () => {
    for (const variable of ['SECRETS_KEY', 'DATABASE_URL', 'AGENT_KEY', 'OPENAI_API_KEY', 'HOME']) {
      await expectRefused(
        'POST',
        '/agents/',
        llmAgent({ apiKeyEnv: variable }),
        'MODEL_API_KEY_ENVS',
        'agent.model.apiKeyEnv',
      );
    }
    const agent = await api.expect<{ id: string }>(201, 'POST', '/agents/', llmAgent({ baseUrl: capture.baseUrl }));
    const { url: engineUrl, credentials } = await startEngine(agent.id);
    await waitUntil(async () => (await fetch(`${engineUrl}/health`)).ok, { what: 'the engine to serve its config' });
    capture.script({ text: ['hello'] });
    const client = new HttpAgent({
      url: `${engineUrl}/agent/run`,
      threadId: randomUUID(),
      initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
    });
    await client.runAgent({});
    expect(capture.requests).toHaveLength(1);
    const sent = JSON.stringify(capture.requests[0]);
    // Neither the operator's key, the platform's, any database credential, nor the engine's own credentials.
    const passwords = [database.url, credentials.DATABASE_URL].map((url) => new URL(url).password).filter(Boolean);
    const secrets = [OPERATOR_KEY, SECRETS_KEY, database.url, credentials.DATABASE_URL, credentials.AGENT_KEY];
    for (const secret of [...secrets, ...passwords]) {
      expect(sent).not.toContain(secret);
    }
    expect(capture.requests[0]?.authorization).toBeUndefined();
    expect(operatorModel.requests).toEqual([]);
  });

  it('cannot point an agent at code outside the agents directory', async () => {
    const module = (reference: string) => ({ name: 'custom', framework: 'CUSTOM', agent: { module: reference } });
    await expectRefused('POST', '/agents/', module('/etc/agentplane/agent.js:createAgent'), undefined, 'agent.module');
    await expectRefused('POST', '/agents/', module('../../agent.js:createAgent'), undefined, 'agent.module');
    const graph = { name: 'graph', framework: 'LANGGRAPH', agent: { graph: 'node_modules/x/index.js:graph' } };
    await expectRefused('POST', '/agents/', graph, undefined, 'agent.graph');
  });
});
