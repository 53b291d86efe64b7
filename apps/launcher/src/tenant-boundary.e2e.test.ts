// A tenant plays the attacker against a manager and engines run as separate processes, signed up
// through the API like anyone: what it may make the engine execute (stdio commands, agent modules), which
// of the engine's credentials it may reach through a model it configures, which addresses it may make the
// engine call, and what the engine's own database login reaches. Each attack is made on an agent of a
// dedicated engine and on one of a pool engine that serves a victim tenant's agent beside it.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EventType, HttpAgent } from '@ag-ui/client';
import { engineRoleName } from '@agentplane/db';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { engineEnvFor } from './testing/engine-env.js';
import { whatsappIntegration } from './testing/integration-bodies.js';
import { type PoolPlatform, startPoolPlatform } from './testing/pool-platform.js';
import { ServiceProcesses } from './testing/service-processes.js';

type Problem = { status: number; detail: string; errors?: { path: string; message: string }[] };
type Health = { config_version: number; mcp: { name: string; status: string; error?: string; error_id?: string }[] };
type Placement = 'dedicated' | 'pool';

const EVERYTHING = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const PERMITTED = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const SECRETS_KEY = randomBytes(32).toString('base64');
const OPERATOR_KEY = `sk-operator-${randomUUID()}`;
const VICTIM_TOKEN = `EAAG-victim-${randomUUID()}`;
// The tests' own peers listen on 127.0.0.1, which the engines may reach; 127.0.0.2 is loopback too, and
// the manager (allowing all of loopback) accepts it, so only the engine's policy stands in the way.
const ENGINE_EGRESS_ALLOW = '127.0.0.1/32';
const REFUSED_LOOPBACK = '127.0.0.2';
const DEDICATED_CONNECTIONS = 3;

const services = new ServiceProcesses();
let database: TestDatabase;
let capture: FakeOpenAiServer;
let operatorModel: FakeOpenAiServer;
let scratch: string;
let platform: PoolPlatform;
let attacker: ManagerClient;
let victim: ManagerClient;
let victimAgentId: string;
let engineEnv: Record<string, string>;

beforeAll(async () => {
  [database, capture, operatorModel] = await Promise.all([
    createTestDatabase(),
    startFakeOpenAiServer(),
    startFakeOpenAiServer(),
  ]);
  scratch = await mkdtemp(path.join(tmpdir(), 'tenant-boundary-'));
  // What the operator gives both services: the one permitted stdio command line, its model key. The
  // platform's DATABASE_URL and SECRETS_KEY go to the manager only; engines get credentials the operator issues.
  const operator = {
    MCP_STDIO_COMMANDS: JSON.stringify([PERMITTED]),
    OPENAI_API_KEY: OPERATOR_KEY,
    OPENAI_BASE_URL: operatorModel.baseUrl,
  };
  engineEnv = { ...operator, ENGINE_EGRESS_ALLOW };
  platform = await startPoolPlatform(services, {
    managerEnv: {
      ...operator,
      DATABASE_URL: database.url,
      SECRETS_KEY,
      SESSION_SECRET: randomBytes(32).toString('base64'),
      EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      // Engine roles' connection limits count against the platform's total (half the server's
      // max_connections): small dedicated engines, so that the pool's and four of theirs fit. Each
      // role's limit holds its engine's pool, its LISTEN connection and the test's own login as it.
      ENGINE_DB_CONNECTION_LIMIT: String(DEDICATED_CONNECTIONS + 2),
    },
    engineEnv,
  });
  // Both sign up, which makes each its workspace's owner: no more than any tenant may.
  attacker = await ManagerClient.signUp(platform.managerUrl);
  victim = await ManagerClient.signUp(platform.managerUrl);
  // The victim's agent holds a secret in its config (its integration's access token) and sits on the pool.
  const secretHolder = whatsappIntegration('1065550100');
  secretHolder.integration.config.accessToken = VICTIM_TOKEN;
  const integration = await victim.expect<{ id: string }>(201, 'POST', '/integrations/', secretHolder);
  const agent = await victim.expect<{ id: string; deployment: object }>(201, 'POST', '/agents/', {
    name: 'victim agent',
    framework: 'LLM',
    agent: { model: { provider: 'mock', name: 'echo' } },
    resources: { integration_ids: [integration.id] },
  });
  expect(agent.deployment).toEqual({ mode: 'pool', pool: platform.pool });
  victimAgentId = agent.id;
});

afterAll(async () => {
  await services.stopAll();
  await Promise.all([capture?.close(), operatorModel?.close(), database?.drop()]);
  await rm(scratch, { recursive: true, force: true });
});

const deploymentOf = (placement: Placement) =>
  placement === 'pool' ? { mode: 'pool', pool: platform.pool } : { mode: 'dedicated' };

/**
 * Where the agent answers, and the credentials of the engine serving it: an engine of its own, started on
 * the credentials the operator issues for it, or the pool, with the pool's.
 */
async function serve(agentId: string, placement: Placement): Promise<{ url: string; credentials: string[] }> {
  if (placement === 'pool') {
    const { DATABASE_URL, ENGINE_POOL_KEY } = platform.credentials;
    return { url: `${platform.poolUrl}/agents/${agentId}`, credentials: [DATABASE_URL, ENGINE_POOL_KEY] };
  }
  const credentials = await engineEnvFor(platform.managerEnv, agentId);
  const url = await services.start('engine', {
    ...engineEnv,
    ...credentials,
    ENGINE_MANAGER_ISSUER: await attacker.issuer(),
    ENGINE_POOL_DB_CONNECTIONS: String(DEDICATED_CONNECTIONS),
  });
  return { url, credentials: [credentials.DATABASE_URL, credentials.AGENT_KEY] };
}

async function tokenFor(tenant: ManagerClient, agentId: string): Promise<string> {
  return (await tenant.expect<{ access_token: string }>(201, 'POST', `/agents/${agentId}/token`)).access_token;
}

/** Runs the agent at `url` once, as a stock AG-UI client does, and returns the events it streamed. */
async function runAgent(url: string, token: string): Promise<{ type: string; message?: string }[]> {
  const client = new HttpAgent({
    url: `${url}/agent/run`,
    headers: { Authorization: `Bearer ${token}` },
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
  });
  const events: { type: string; message?: string }[] = [];
  await client
    .runAgent({}, { onEvent: ({ event }) => void events.push(event as { type: string; message?: string }) })
    .catch(() => undefined);
  return events;
}

/** The victim's agent on the pool still answers its own tenant, and the attacker's token does not open it. */
async function expectVictimUnaffected(attackerToken: string): Promise<void> {
  const url = `${platform.poolUrl}/agents/${victimAgentId}`;
  const events = await runAgent(url, await tokenFor(victim, victimAgentId));
  expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  const trespass = await fetch(`${url}/agent/config`, { headers: { Authorization: `Bearer ${attackerToken}` } });
  expect(trespass.status).toBe(401);
}

async function expectRefused(method: string, route: string, body: unknown, setting: string | undefined, field: string) {
  const response = await attacker.request<Problem>(method, route, body);
  expect(response.status).toBe(422);
  if (setting !== undefined) expect(response.body.detail).toContain(setting);
  expect(response.body.errors?.map((error) => error.path)).toEqual([field]);
}

const llmAgent = (placement: Placement, model: Record<string, unknown>, mcpServerIds: string[] = []) => ({
  name: `agent-${randomUUID().slice(0, 8)}`,
  framework: 'LLM',
  agent: { model: { provider: 'openai', name: 'gpt-4o-mini', ...model } },
  resources: { mcp_server_ids: mcpServerIds },
  deployment: deploymentOf(placement),
});

describe.each<[string, Placement]>([
  ['a dedicated engine', 'dedicated'],
  ["a pool engine serving a victim's agent beside it", 'pool'],
])('a tenant against the operator policy, on %s', (_label, placement) => {
  it('cannot make the engine run a command of its own, through the manager or around it', async () => {
    const marker = path.join(scratch, `spawned-${placement}`);
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
    const everything = await attacker.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
      name: 'everything',
      mcp_server: { name: 'everything', transport: 'stdio', ...PERMITTED },
    });
    const agent = await attacker.expect<{ id: string; engine_config: { mcp_servers: object[] } }>(
      201,
      'POST',
      '/agents/',
      { ...llmAgent(placement, {}, [everything.id]), agent: { model: { provider: 'mock', name: 'echo' } } },
    );
    const { url } = await serve(agent.id, placement);
    const health = async () => (await (await fetch(`${url}/health`)).json()) as Health;
    await waitUntil(async () => (await fetch(`${url}/health`)).ok, { what: 'the engine to serve its config' });
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
    await expectVictimUnaffected(await tokenFor(attacker, agent.id));
  });

  it("cannot name the engine's variables for its model, nor receive the operator's key, the engine's credentials or another tenant's secrets at its own baseUrl", async () => {
    for (const variable of ['SECRETS_KEY', 'DATABASE_URL', 'AGENT_KEY', 'ENGINE_POOL_KEY', 'OPENAI_API_KEY', 'HOME']) {
      await expectRefused(
        'POST',
        '/agents/',
        llmAgent(placement, { apiKeyEnv: variable }),
        'MODEL_API_KEY_ENVS',
        'agent.model.apiKeyEnv',
      );
    }
    const agent = await attacker.expect<{ id: string }>(
      201,
      'POST',
      '/agents/',
      llmAgent(placement, { baseUrl: capture.baseUrl }),
    );
    const { url, credentials } = await serve(agent.id, placement);
    await waitUntil(async () => (await fetch(`${url}/health`)).ok, { what: 'the engine to serve its config' });
    capture.requests.splice(0);
    capture.script({ text: ['hello'] });
    const token = await tokenFor(attacker, agent.id);
    expect((await runAgent(url, token)).at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(capture.requests).toHaveLength(1);
    const sent = JSON.stringify(capture.requests[0]);
    // Neither the operator's key, the platform's, any database credential, the engine's own credentials,
    // nor the secret of the agent served beside it.
    const passwords = [database.url, credentials[0] as string].map((url) => new URL(url).password).filter(Boolean);
    const secrets = [OPERATOR_KEY, SECRETS_KEY, database.url, ...credentials, VICTIM_TOKEN];
    for (const secret of [...secrets, ...passwords]) {
      expect(sent).not.toContain(secret);
    }
    expect(capture.requests[0]?.authorization).toBeUndefined();
    expect(operatorModel.requests).toEqual([]);
    await expectVictimUnaffected(token);
  });

  it('cannot make the engine reach a private address the operator has not allowed, even one the manager accepts', async () => {
    let connections = 0;
    const peer = createServer((_req, res) => res.writeHead(404).end());
    peer.on('connection', () => connections++);
    peer.listen(0, REFUSED_LOOPBACK);
    await new Promise((resolve) => peer.once('listening', resolve));
    try {
      const origin = `http://${REFUSED_LOOPBACK}:${(peer.address() as { port: number }).port}`;
      const mcp = await attacker.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
        name: 'local',
        mcp_server: { name: 'local', transport: 'streamable_http', url: `${origin}/mcp` },
      });
      const agent = await attacker.expect<{ id: string }>(
        201,
        'POST',
        '/agents/',
        llmAgent(placement, { baseUrl: `${origin}/v1` }, [mcp.id]),
      );
      const { url } = await serve(agent.id, placement);
      await waitUntil(async () => (await fetch(`${url}/health`)).status === 200, { what: 'the agent to be served' });
      const health = (await (await fetch(`${url}/health`)).json()) as Health;
      expect(health.mcp).toEqual([
        {
          name: 'local',
          status: 'failed',
          error:
            "Its address is refused by the engine's egress policy; the operator can allow it with ENGINE_EGRESS_ALLOW",
          error_id: expect.any(String),
        },
      ]);
      const token = await tokenFor(attacker, agent.id);
      expect((await runAgent(url, token)).at(-1)).toMatchObject({
        type: EventType.RUN_ERROR,
        message: expect.stringMatching(/refused by the engine's egress policy.*ENGINE_EGRESS_ALLOW/),
      });
      expect(connections).toBe(0);
      await expectVictimUnaffected(token);
    } finally {
      await new Promise((resolve) => peer.close(resolve));
    }
  });

  it("holds no database credential, and the engine's own login reaches nothing of the platform's nor of agents not served by it", async () => {
    const agent = await attacker.expect<{ id: string }>(
      201,
      'POST',
      '/agents/',
      llmAgent(placement, { provider: 'mock', name: 'echo' }),
    );
    // No workspace role may ask for database credentials, the owner's included.
    expect((await attacker.request('POST', `/agents/${agent.id}/engine-credentials`)).status).toBe(403);
    expect((await attacker.request('POST', `/engine-pools/${platform.pool}/credentials`)).status).toBe(403);

    // What the engine serving it logs in with, as whatever runs in that engine holds it.
    const { credentials } = await serve(agent.id, placement);
    const asEngine = await database.connectClient({ url: credentials[0] as string });
    try {
      for (const table of ['users', 'sessions', 'memberships', 'signing_keys', 'integrations']) {
        await expect(asEngine.query(`SELECT * FROM ${table}`)).rejects.toMatchObject({ code: '42501' });
      }
      // Another tenant's agent on an engine of its own: its role is not this login's to take.
      const elsewhere = await victim.expect<{ id: string }>(201, 'POST', '/agents/', {
        ...llmAgent('dedicated', { provider: 'mock', name: 'echo' }),
      });
      await expect(asEngine.query(`SET ROLE ${engineRoleName(elsewhere.id)}`)).rejects.toMatchObject({
        code: '42501',
      });
      if (placement === 'pool') {
        // The pool's login by itself reads nothing: each agent's statements run under that agent's role.
        await expect(asEngine.query('SELECT agent_id FROM engine_configs')).rejects.toMatchObject({ code: '42501' });
        await asEngine.query(`SET ROLE ${engineRoleName(agent.id)}`);
      }
      expect((await asEngine.query('SELECT agent_id FROM engine_configs')).rows).toEqual([{ agent_id: agent.id }]);
      await expect(asEngine.query(`UPDATE engine_configs SET config = '{}'`)).rejects.toMatchObject({
        code: '42501',
      });
    } finally {
      await asEngine.end();
    }
  });
});

describe('a tenant against the operator policy', () => {
  it('cannot point an agent at code outside the agents directory', async () => {
    const module = (reference: string) => ({ name: 'custom', framework: 'CUSTOM', agent: { module: reference } });
    await expectRefused('POST', '/agents/', module('/etc/agentplane/agent.js:createAgent'), undefined, 'agent.module');
    await expectRefused('POST', '/agents/', module('../../agent.js:createAgent'), undefined, 'agent.module');
    const graph = { name: 'graph', framework: 'LANGGRAPH', agent: { graph: 'node_modules/x/index.js:graph' } };
    await expectRefused('POST', '/agents/', graph, undefined, 'agent.graph');
  });
});
