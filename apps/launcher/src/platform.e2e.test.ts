// The manager and an engine as separate processes on one database, driven as a product is: over HTTP,
// with a frontend's session on the manager and an AG-UI client on the engine.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventType, HttpAgent } from '@ag-ui/client';
import type { TEngineCredentials } from '@agentplane/contracts';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ManagerApi } from './manager-api.js';

const entryOf = (app: string) => fileURLToPath(new URL(`../../${app}/dist/server.js`, import.meta.url));
// The engine polls so rarely that a change it serves within the test can only have come by NOTIFY.
// (How fast NOTIFY is, is benchmark 3's business: on a loaded CI machine a timing bound here would flake.)
const POLL_MS = 120_000;

let database: TestDatabase;
const children: ChildProcess[] = [];

/** Starts a service on port 0 and resolves with the URL it reports over IPC once it listens. */
async function startProcess(app: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [entryOf(app)], {
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  const [message] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`${app} exited (code ${code}) before listening`))),
  ])) as [{ url: string }];
  return message.url;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  await database?.drop();
});

describe('manager and engine together', () => {
  it('publishes an agent the engine serves, streams to an AG-UI client, and follows every change', async () => {
    const secretsKey = randomBytes(32).toString('base64');
    const managerUrl = await startProcess('manager', {
      DATABASE_URL: database.url,
      SECRETS_KEY: secretsKey,
      SESSION_SECRET: randomBytes(32).toString('base64'),
    });
    await waitFor(async () => ((await fetch(`${managerUrl}/api/v1/readyz`)).ok ? true : undefined));

    // A frontend signs up and configures an agent with an MCP server and an integration.
    const api = new ManagerApi(managerUrl);
    await api.expect(201, 'POST', '/auth/signup', {
      email: `e2e-${randomUUID()}@example.test`,
      password: 'e2e password!',
    });
    const everything = path.join(
      path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')),
      'dist/index.js',
    );
    const mcp = await api.expect<{ id: string }>(201, 'POST', '/mcp-servers/', {
      name: 'everything',
      mcp_server: { name: 'everything', transport: 'stdio', command: process.execPath, args: [everything, 'stdio'] },
    });
    const whatsapp = (phoneNumberId: string) => ({
      name: 'support line',
      integration: {
        provider: 'WHATSAPP',
        config: { accessToken: 'EAAG-e2e-token', phoneNumberId, verifyToken: 'verify' },
      },
    });
    const integration = await api.expect<{ id: string }>(201, 'POST', '/integrations/', whatsapp('1065550001'));
    const agent = await api.expect<{ id: string }>(201, 'POST', '/agents/', {
      name: 'e2e agent',
      framework: 'LLM',
      agent: { model: { provider: 'mock', name: 'echo' } },
      resources: { integration_ids: [integration.id], mcp_server_ids: [mcp.id] },
    });

    // Its engine, as its own process, with the credentials the manager issues for it: its own database
    // role and its agent key, never the platform's DATABASE_URL or SECRETS_KEY.
    const credentials = await api.expect<TEngineCredentials>(201, 'POST', `/agents/${agent.id}/engine-credentials`);
    const engineUrl = await startProcess('engine', {
      DATABASE_URL: credentials.database_url,
      AGENT_ID: credentials.agent_id,
      AGENT_KEY: credentials.agent_key,
      ENGINE_MANAGER_ISSUER: await api.issuer(),
      ENGINE_CONFIG_POLL_MS: String(POLL_MS),
    });
    await waitFor(async () => ((await fetch(`${engineUrl}/health`)).ok ? true : undefined));
    const engineEnvironment = await readFile(`/proc/${children.at(-1)?.pid}/environ`, 'utf8');
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
    const served = await waitFor(async () => {
      const config = await configOf();
      return config.version === 2 ? config : undefined;
    });
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
    const asEngine = await database.connectClient({ url: credentials.database_url });
    for (const table of ['users', 'sessions', 'memberships', 'signing_keys', 'integrations']) {
      await expect(asEngine.query(`SELECT * FROM ${table}`)).rejects.toMatchObject({ code: '42501' });
    }
    expect((await asEngine.query('SELECT agent_id FROM engine_configs')).rows).toEqual([{ agent_id: agent.id }]);
    await expect(asEngine.query(`UPDATE engine_configs SET config = '{}'`)).rejects.toMatchObject({ code: '42501' });
    await asEngine.end();

    // Deleting the agent stops its engine from serving runs, and drops its role: its credentials stop working.
    await api.expect(204, 'DELETE', `/agents/${agent.id}`);
    await expect(database.connectClient({ url: credentials.database_url })).rejects.toMatchObject({
      code: '28P01',
    });
    await waitFor(async () => {
      const response = await fetch(`${engineUrl}/agent/run`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          threadId: 't',
          runId: 'r',
          messages: [],
          tools: [],
          context: [],
          state: {},
          forwardedProps: {},
        }),
      });
      return response.status === 503 ? true : undefined;
    });
    expect((await fetch(`${engineUrl}/health`)).status).toBe(503);

    // Now nothing uses the integration.
    await api.expect(204, 'DELETE', `/integrations/${integration.id}`);
  });
});
