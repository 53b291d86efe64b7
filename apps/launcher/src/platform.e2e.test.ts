// The manager and an engine as separate processes on one database, driven as a product is: over HTTP,
// with a frontend's session on the manager and an AG-UI client on the engine.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { EventType, HttpAgent } from '@ag-ui/client';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { listenOnLoopback, makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { engineEnvFor } from './testing/engine-env.js';
import { ServiceProcesses } from './testing/service-processes.js';

// The engine polls so rarely that a change it serves within the test can only have come by NOTIFY.
// (How fast NOTIFY is, is benchmark 3's business: on a loaded CI machine a timing bound here would flake.)
const POLL_MS = 120_000;

let database: TestDatabase;
const services = new ServiceProcesses();
const startProcess = (app: 'manager' | 'engine', env: NodeJS.ProcessEnv) => services.start(app, env);
// One key for every manager on the database: the token signing key is stored sealed with it.
const secretsKey = randomBytes(32).toString('base64');

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await services.stopAll();
  await database?.drop();
});

describe('manager and engine together', () => {
  it('publishes an agent the engine serves, streams to an AG-UI client, and follows every change', async () => {
    const everything = path.join(
      path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
      'dist/index.js',
    );
    // The operator permits the bundled MCP server's command line, on the manager and on the engine.
    const everythingLine = { command: process.execPath, args: [everything, 'stdio'] };
    const stdioCommands = JSON.stringify([everythingLine]);
    const managerEnv = {
      DATABASE_URL: database.url,
      SECRETS_KEY: secretsKey,
      SESSION_SECRET: randomBytes(32).toString('base64'),
      MCP_STDIO_COMMANDS: stdioCommands,
    };
    const managerUrl = await startProcess('manager', managerEnv);
    await waitUntil(async () => (await fetch(`${managerUrl}/api/v1/readyz`)).ok, {
      what: 'the manager to be ready',
      timeoutMs: 30_000,
    });

    // A frontend signs up and configures an agent with an MCP server and an integration.
    const api = await ManagerClient.signUp(managerUrl);
    const mcp = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
      name: 'everything',
      mcp_server: { name: 'everything', transport: 'stdio', ...everythingLine },
    });
    const whatsapp = (phoneNumberId: string) => ({
      name: 'support line',
      integration: {
        provider: 'WHATSAPP',
        // With an app secret: an integration without one refuses deliveries, and makes /health degraded.
        config: { accessToken: 'EAAG-e2e-token', phoneNumberId, verifyToken: 'verify', appSecret: 'e2e-app-secret' },
      },
    });
    const integration = await api.expect<{ id: string }>(201, 'POST', '/integrations/', whatsapp('1065550001'));
    const agent = await api.expect<{ id: string }>(201, 'POST', '/agents/', {
      name: 'e2e agent',
      framework: 'LLM',
      agent: { model: { provider: 'mock', name: 'echo' } },
      resources: { integration_ids: [integration.id], mcp_server_ids: [mcp.id] },
    });

    // With no pools, it is placed on an engine of its own: a process started on the credentials the operator
    // issues for it (its own database role and its agent key), never the platform's DATABASE_URL or SECRETS_KEY.
    const credentials = await engineEnvFor(managerEnv, agent.id);
    const engineUrl = await startProcess('engine', {
      ...credentials,
      ENGINE_MANAGER_ISSUER: await api.issuer(),
      ENGINE_CONFIG_POLL_MS: String(POLL_MS),
      MCP_STDIO_COMMANDS: stdioCommands,
    });
    await waitUntil(async () => (await fetch(`${engineUrl}/health`)).ok, {
      what: 'the engine to serve its config',
      timeoutMs: 30_000,
    });
    // The engine spawned the stdio server because its own MCP_STDIO_COMMANDS permits it too.
    const health = (await (await fetch(`${engineUrl}/health`)).json()) as { status: string; mcp: unknown[] };
    expect(health).toMatchObject({ status: 'ok', mcp: [{ name: 'everything', status: 'connected' }] });
    const engineEnvironment = await readFile(`/proc/${services.lastStartedPid()}/environ`, 'utf8');
    expect(engineEnvironment).not.toContain(secretsKey);
    expect(engineEnvironment).not.toContain(database.url);

    // The frontend streams from the engine with a token the manager minted for it.
    const { access_token: token } = await api.expect<{ access_token: string }>(
      201,
      'POST',
      `/agents/${agent.id}/token`,
    );
    const client = new HttpAgent({
      url: `${engineUrl}/agent/run`,
      headers: { Authorization: `Bearer ${token}` },
      threadId: randomUUID(),
      initialMessages: [{ id: randomUUID(), role: 'user', content: 'Hello from the e2e test' }],
    });
    const events: string[] = [];
    const result = await client.runAgent({}, { onEvent: ({ event }) => void events.push(event.type) });
    expect(events[0]).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)).toBe(EventType.RUN_FINISHED);
    const reply = result.newMessages.find((message) => message.role === 'assistant');
    expect(reply?.content).toContain('Hello from the e2e test');
    const anonymous = await fetch(`${engineUrl}/agent/run`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(anonymous.status).toBe(401);

    // A PATCH of the integration reaches the running engine by NOTIFY, long before any poll.
    const configOf = async () => {
      const response = await fetch(`${engineUrl}/agent/config`, { headers: { Authorization: `Bearer ${token}` } });
      return {
        version: Number(response.headers.get('x-engine-config-version')),
        body: (await response.json()) as { integrations: { config: { phoneNumberId: string } }[] },
      };
    };
    expect((await configOf()).version).toBe(1);
    const patchedAt = performance.now();
    await api.expect(200, 'PATCH', `/integrations/${integration.id}`, whatsapp('1065550002'));
    let served = await configOf();
    await waitUntil(
      async () => {
        served = await configOf();
        return served.version === 2;
      },
      { what: 'the engine to serve version 2', timeoutMs: 30_000 },
    );
    process.stderr.write(
      `e2e: PATCH to the engine serving it, by NOTIFY: ${Math.round(performance.now() - patchedAt)} ms\n`,
    );
    expect(served.body.integrations[0]?.config.phoneNumberId).toBe('1065550002');
    expect(JSON.stringify(served.body)).not.toContain('EAAG-e2e-token');

    // Still referenced: refused.
    const refused = await api.request<{ detail: string }>('DELETE', `/integrations/${integration.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('used by 1 agent');

    // Whatever runs in the engine holds its DATABASE_URL: with it, the platform's tables are out of reach.
    const asEngine = await database.connectClient({ url: credentials.DATABASE_URL });
    for (const table of ['users', 'sessions', 'memberships', 'signing_keys', 'integrations']) {
      await expect(asEngine.query(`SELECT * FROM ${table}`)).rejects.toMatchObject({ code: '42501' });
    }
    expect((await asEngine.query('SELECT agent_id FROM engine_configs')).rows).toEqual([{ agent_id: agent.id }]);
    await expect(asEngine.query(`UPDATE engine_configs SET config = '{}'`)).rejects.toMatchObject({ code: '42501' });
    await asEngine.end();

    // Deleting the agent stops its engine from serving runs, and drops its role: its credentials stop working.
    await api.expect(204, 'DELETE', `/agents/${agent.id}`);
    await expect(database.connectClient({ url: credentials.DATABASE_URL })).rejects.toMatchObject({
      code: '28P01',
    });
    await waitUntil(
      async () => {
        const response = await fetch(`${engineUrl}/agent/run`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(makeRunAgentInput()),
        });
        return response.status === 503;
      },
      { what: 'runs of the deleted agent to answer 503', timeoutMs: 30_000 },
    );
    // A run can be refused first because its row cannot be written any more; /health says so once the
    // engine's next look at the database finds the agent gone.
    await waitUntil(async () => (await fetch(`${engineUrl}/health`)).status === 503, {
      what: 'the engine of the deleted agent to report 503 at /health',
      timeoutMs: 30_000,
    });

    // Now nothing uses the integration.
    await api.expect(204, 'DELETE', `/integrations/${integration.id}`);
  });
});

describe('a tenant pointing its engine at private addresses', () => {
  const REFUSED_HOSTS = ['127.0.0.1', '169.254.169.254', '10.0.0.1', '[::ffff:127.0.0.1]'];

  /** A loopback server that counts the connections reaching it: none may, with nothing allowed. */
  async function startCountingPeer() {
    let connections = 0;
    const server = createServer((_req, res) => res.writeHead(404).end());
    server.on('connection', () => connections++);
    return {
      port: (await listenOnLoopback(server)).port,
      connections: () => connections,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it('is refused by the manager at write time and by the engine at connect time, even around the manager', async () => {
    // Neither EGRESS_ALLOW nor ENGINE_EGRESS_ALLOW: the defaults an operator gets.
    const managerEnv = {
      DATABASE_URL: database.url,
      SECRETS_KEY: secretsKey,
      SESSION_SECRET: randomBytes(32).toString('base64'),
    };
    const managerUrl = await startProcess('manager', managerEnv);
    await waitUntil(async () => (await fetch(`${managerUrl}/api/v1/readyz`)).ok, { what: 'the manager' });
    const api = await ManagerClient.signUp(managerUrl);

    // Write time: every literal address in a refused range is a 422 naming its field.
    const pathsRefused = async (path: string, body: unknown) =>
      (await api.request<{ errors?: { path: string }[] }>('POST', path, body)).body.errors?.map((error) => error.path);
    for (const host of REFUSED_HOSTS) {
      const mcp = { name: 'm', mcp_server: { name: 'm', transport: 'streamable_http', url: `http://${host}/mcp` } };
      expect(await pathsRefused('/mcp-servers/', mcp)).toEqual(['mcp_server.url']);
      const model = { provider: 'openai', name: 'gpt', baseUrl: `http://${host}/v1` };
      const agent = { name: 'a', framework: 'LLM', agent: { model }, resources: {} };
      expect(await pathsRefused('/agents/', agent)).toEqual(['agent.model.baseUrl']);
      const sso = { name: 's', sso: { issuer: `https://${host}/realm`, audience: 'agents' } };
      expect(await pathsRefused('/sso/', sso)).toEqual(['sso.issuer']);
    }

    // Connect time: a host name that resolves to loopback passes the manager; the engine refuses it.
    const peer = await startCountingPeer();
    try {
      const mcp = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
        name: 'local',
        mcp_server: { name: 'local', transport: 'streamable_http', url: `http://localhost:${peer.port}/mcp` },
      });
      const agent = await api.expect<{ id: string; engine_config: Record<string, unknown> }>(201, 'POST', '/agents/', {
        name: 'prober',
        framework: 'LLM',
        agent: { model: { provider: 'openai', name: 'gpt', baseUrl: `http://localhost:${peer.port}/v1` } },
        resources: { mcp_server_ids: [mcp.id] },
      });
      // Its own credentials, as the operator issues them; the config rewritten below holds no secret to seal.
      const engineUrl = await startProcess('engine', {
        ...(await engineEnvFor(managerEnv, agent.id)),
        ENGINE_MANAGER_ISSUER: await api.issuer(),
        ENGINE_CONFIG_POLL_MS: String(POLL_MS),
        // The refusals are logged as warnings; this test reads them from /health and RUN_ERROR instead.
        LOG_LEVEL: 'error',
      });
      const { access_token: token } = await api.expect<{ access_token: string }>(
        201,
        'POST',
        `/agents/${agent.id}/token`,
      );
      type Health = { config_version: number; mcp: { status: string; error?: string; error_id?: string }[] };
      const health = async () => (await fetch(`${engineUrl}/health`)).json() as Promise<Health>;
      const expectRefusedByEngine = async (version: number) => {
        await waitUntil(async () => (await health()).config_version === version, { what: `version ${version}` });
        expect((await health()).mcp).toEqual([
          {
            name: 'local',
            status: 'failed',
            error:
              "Its address is refused by the engine's egress policy; the operator can allow it with ENGINE_EGRESS_ALLOW",
            error_id: expect.any(String),
          },
        ]);
        const client = new HttpAgent({
          url: `${engineUrl}/agent/run`,
          headers: { Authorization: `Bearer ${token}` },
          initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
        });
        const events: { type: string; message?: string }[] = [];
        await client
          .runAgent({}, { onEvent: ({ event }) => void events.push(event as { type: string; message?: string }) })
          .catch(() => undefined);
        expect(events.at(-1)).toMatchObject({
          type: EventType.RUN_ERROR,
          message: expect.stringMatching(
            /refused by the engine's egress policy; the operator can allow it with ENGINE_EGRESS_ALLOW \(error id [0-9a-f-]{36}\)/,
          ),
        });
      };
      await expectRefusedByEngine(1);

      // Around the manager: literal addresses written straight into the agent's engine_configs row.
      let version = 1;
      for (const host of REFUSED_HOSTS) {
        version++;
        const config = structuredClone(agent.engine_config) as {
          agent: { config: { model: { baseUrl: string } } };
          mcp_servers: { url: string }[];
        };
        config.agent.config.model.baseUrl = `http://${host}:${peer.port}/v1`;
        for (const server of config.mcp_servers) server.url = `http://${host}:${peer.port}/mcp`;
        await database.prisma
          .$executeRaw`UPDATE engine_configs SET config = ${JSON.stringify(config)}::jsonb, version = ${version} WHERE agent_id = ${agent.id}::uuid`;
        await database.prisma
          .$executeRaw`SELECT pg_notify(config_channel, 'config') FROM engine_channels WHERE agent_id = ${agent.id}::uuid`;
        await expectRefusedByEngine(version);
      }
      expect(peer.connections()).toBe(0);
    } finally {
      await peer.close();
    }
  });
});
