// Runs the real `pnpm start` entry point as a child process, as a newcomer would.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TAgent } from '@agentplane/contracts';
import { findFreePort } from '@agentplane/db/embedded';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { makeRunAgentInput, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterEach, describe, expect, it } from '@jest/globals';
import { uniquePoolName } from './testing/pool-platform.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

type DemoAgentBody = { name: string; description: string | null; framework: string; agent: object; resources: object };
type Launched = { child: ChildProcess; output: () => string; exit: Promise<number | null> };

function launch(env: NodeJS.ProcessEnv): Launched {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, LOG_LEVEL: 'warn', SECRETS_KEY: '', SESSION_SECRET: '', OPENAI_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function waitForOutput(launched: Launched, pattern: RegExp, timeoutMs = 50_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = launched.output().match(pattern);
    if (match) return match;
    if (launched.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`no ${pattern} in the output:\n${launched.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let running: Launched[] = [];
let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const launched of running) {
    if (launched.child.exitCode === null) {
      launched.child.kill('SIGKILL');
      await launched.exit;
    }
  }
  for (const cleanup of cleanups) await cleanup();
  running = [];
  cleanups = [];
});

async function dataDir(): Promise<string> {
  // Mode 0700, as mkdtemp makes it: as root, the launcher must still get PostgreSQL (run as the postgres
  // user) into its data directory inside.
  const dir = await mkdtemp(path.join(tmpdir(), 'agentplane-launcher-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A free port whose successor is free too, for the two metrics listeners METRICS_PORT makes. */
async function findTwoFreePorts(): Promise<number> {
  for (;;) {
    const port = await findFreePort();
    const probe = createServer();
    const free = await new Promise<boolean>((resolve) => {
      probe.once('error', () => resolve(false));
      probe.listen(port + 1, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

async function start(env: NodeJS.ProcessEnv) {
  // Port 0: the services take free ports and the welcome text says which.
  const launched = launch({ ...env, MANAGER_PORT: '0', ENGINE_PORT: '0' });
  running.push(launched);
  await waitForOutput(launched, /Agentplane is running/);
  const portAfter = (label: string) =>
    launched.output().match(new RegExp(`${label}:\\s+http://localhost:(\\d+)/`))?.[1];
  const demo = launched.output().match(/Demo agent:\s+http:\/\/localhost:(\d+)(\/agents\/[0-9a-f-]{36})\//);
  return {
    launched,
    manager: `http://127.0.0.1:${portAfter('Manager API')}`,
    /** The pool engine's root. */
    engine: `http://127.0.0.1:${portAfter('Engine pool')}`,
    /** The demo agent's base URL on the pool. */
    demoAgent: `http://127.0.0.1:${demo?.[1]}${demo?.[2]}`,
  };
}

/** Starts the launcher on a database of the suite's server, with a pool name of its own (pool roles are cluster-wide). */
async function startOnTestDatabase(env: NodeJS.ProcessEnv = {}) {
  const database: TestDatabase = await createTestDatabase({ migrated: false });
  cleanups.push(() => database.drop());
  const pool = uniquePoolName();
  const started = await start({
    DATABASE_URL: database.url,
    AGENTPLANE_DATA_DIR: await dataDir(),
    ENGINE_POOL: pool,
    ...env,
  });
  return { ...started, database, pool };
}

const demoPassword = (launched: Launched) => launched.output().match(/with password (\S+)/)?.[1];
const demoAgentId = (launched: Launched) => launched.output().match(/\(agent ([0-9a-f-]{36})\)/)?.[1];

async function signInAsDemo(manager: string, launched: Launched): Promise<ManagerClient> {
  const demo = new ManagerClient(manager);
  await demo.expect(200, 'POST', '/auth/login', { email: 'demo@agentplane.local', password: demoPassword(launched) });
  return demo;
}

async function runDemoAgent(demoAgent: string, output: string): Promise<string> {
  const token = output.match(/Authorization: Bearer ([\w.-]+)'/)?.[1];
  const body = output.match(/-d '(\{"threadId".*\})'/)?.[1];
  expect(token).toBeDefined();
  const response = await fetch(`${demoAgent}/agent/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body,
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('pnpm start', () => {
  it('migrates DATABASE_URL, runs a pool engine serving the demo agent and any new one at once, and stops cleanly on SIGTERM', async () => {
    const { launched, manager, engine, demoAgent, pool } = await startOnTestDatabase();
    expect(launched.output()).toContain('[migrate] applied');
    expect((await fetch(`${manager}/api/v1/readyz`)).status).toBe(200);
    const poolHealth = await fetch(`${engine}/health`);
    expect(poolHealth.status).toBe(200);
    expect(await poolHealth.json()).toMatchObject({ status: 'ok', pool });
    const health = await fetch(`${demoAgent}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', config_version: 1 });

    // The console comes first, served by the manager, and may reach the pool, which knows it.
    const consolePort = launched
      .output()
      .match(/Agentplane is running\.\n {2}Console: +http:\/\/localhost:(\d+)\//)?.[1];
    expect(consolePort).toBe(new URL(manager).port);
    const page = await fetch(`${manager}/agents`, { headers: { Accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy');
    expect(csp).toContain("connect-src 'self' http://localhost:* http://127.0.0.1:*");
    const consoleOrigin = `http://localhost:${consolePort}`;
    const cors = await fetch(`${demoAgent}/health`, { headers: { Origin: consoleOrigin } });
    expect(cors.headers.get('access-control-allow-origin')).toBe(consoleOrigin);
    const demo = await signInAsDemo(manager, launched);
    const agentId = demoAgentId(launched);
    const agent = await demo.expect<TAgent>(200, 'GET', `/agents/${agentId}`);
    expect(agent).toMatchObject({
      deployment: { mode: 'pool', pool },
      engine_url: `http://localhost:${new URL(engine).port}/agents/${agentId}`,
    });
    // It names the agent's MCP and A2A endpoints as its response does.
    expect(launched.output()).toContain(`MCP server:   ${agent.endpoints?.mcp}\n`);
    expect(launched.output()).toContain(
      `A2A peer:     ${agent.endpoints?.a2a}   (card: ${agent.endpoints?.agent_card})\n`,
    );

    // The printed curl works as printed: a manager-minted token, an SSE run that finishes.
    const stream = await runDemoAgent(demoAgent, launched.output());
    expect(stream).toContain('"type":"RUN_STARTED"');
    expect(stream).toContain('"type":"RUN_FINISHED"');

    // A newcomer's first agent answers at once, as its playground calls it: from the console's origin, at
    // the engine_url the manager gives it, with a token the manager mints. Nobody asked for credentials,
    // which no workspace role may.
    const newcomer = await ManagerClient.signUp(manager);
    const created = await newcomer.expect<{ id: string; engine_url: string; deployment: object }>(
      201,
      'POST',
      '/agents/',
      { name: 'first agent', framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } },
    );
    expect(created.deployment).toEqual({ mode: 'pool', pool });
    expect(csp).toContain(new URL(created.engine_url).origin);
    const { access_token: token } = await newcomer.expect<{ access_token: string }>(
      201,
      'POST',
      `/agents/${created.id}/token`,
    );
    const firstRun = await fetch(`${created.engine_url}/agent/run`, {
      method: 'POST',
      headers: {
        Origin: consoleOrigin,
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
      },
      body: JSON.stringify(makeRunAgentInput('hello, new agent')),
    });
    expect(firstRun.status).toBe(200);
    expect(firstRun.headers.get('access-control-allow-origin')).toBe(consoleOrigin);
    expect(await firstRun.text()).toContain('"type":"RUN_FINISHED"');
    expect((await newcomer.request('POST', `/agents/${created.id}/engine-credentials`)).status).toBe(403);

    launched.child.kill('SIGTERM');
    expect(await launched.exit).toBe(0);
    expect(launched.output()).toContain('[launcher] stopped');
    await expect(fetch(`${manager}/api/v1/healthz`)).rejects.toThrow();
    await expect(fetch(`${engine}/health`)).rejects.toThrow();
  });

  it('keeps tenants off this machine with its own defaults: loopback egress is refused, the manager listens on loopback', async () => {
    // Nothing besides what every start needs: no EGRESS_ALLOW, ENGINE_EGRESS_ALLOW nor HOST.
    const { launched, manager, engine, demoAgent, database } = await startOnTestDatabase({
      EGRESS_ALLOW: undefined,
      ENGINE_EGRESS_ALLOW: undefined,
      HOST: undefined,
    });
    // A loopback peer standing for the host's own services; it must never be asked anything.
    const peer = await startFakeOpenAiServer();
    cleanups.push(() => peer.close());
    const local = new URL(peer.baseUrl);

    // Any sign-up, at write time: an MCP url, a model baseUrl, an SSO issuer and a trace exporter on loopback.
    const tenant = await ManagerClient.signUp(manager);
    const refusals: [string, unknown][] = [
      [
        '/mcp-servers/',
        { name: 'm', mcp_server: { name: 'm', transport: 'streamable_http', url: `${local.origin}/mcp` } },
      ],
      [
        '/agents/',
        { name: 'a', framework: 'LLM', agent: { model: { provider: 'openai', name: 'gpt', baseUrl: peer.baseUrl } } },
      ],
      ['/sso/', { name: 's', sso: { issuer: `https://${local.host}/realm`, audience: 'agents' } }],
      ['/observability/', { name: 'o', observability: { provider: 'OTLP', endpoint: `${local.origin}/v1/traces` } }],
    ];
    for (const [route, body] of refusals) {
      const refused = await tenant.request<{ detail: string }>('POST', route, body);
      expect({ route, status: refused.status }).toEqual({ route, status: 422 });
      // The refusal names what a developer with a local server would set.
      expect(refused.body.detail).toMatch(/EGRESS_ALLOW.*ENGINE_EGRESS_ALLOW/);
    }

    // Around the manager: the pool refuses loopback too, the model's and an MCP server's.
    const agentId = demoAgentId(launched);
    const demo = await signInAsDemo(manager, launched);
    const { engine_config: config } = await demo.expect<{
      engine_config: { agent: { config: { model: object } }; mcp_servers: object[] };
    }>(200, 'GET', `/agents/${agentId}`);
    config.agent.config.model = { provider: 'openai', name: 'gpt', baseUrl: peer.baseUrl };
    config.mcp_servers.push({
      ...config.mcp_servers[0],
      name: 'local',
      transport: 'streamable_http',
      url: `${local.origin}/mcp`,
    });
    await database.prisma
      .$executeRaw`UPDATE engine_configs SET config = ${JSON.stringify(config)}::jsonb, version = version + 1 WHERE agent_id = ${agentId}::uuid`;
    type Health = { config_version: number; mcp: { name: string; error?: string }[] };
    const health = async () => (await (await fetch(`${demoAgent}/health`)).json()) as Health;
    await waitUntil(async () => (await health()).config_version === 2, { what: 'the rewritten config to be applied' });
    expect((await health()).mcp.find((server) => server.name === 'local')?.error).toMatch(/ENGINE_EGRESS_ALLOW/);
    const run = await runDemoAgent(demoAgent, launched.output());
    expect(run).toMatch(/"type":"RUN_ERROR".*ENGINE_EGRESS_ALLOW/);
    expect(peer.requests).toEqual([]);

    // Only this machine reaches the manager and the engine: not through any other address it has.
    const outward = Object.values(networkInterfaces())
      .flat()
      .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
    if (outward !== undefined) {
      for (const url of [manager, engine]) {
        const elsewhere = new URL(url);
        elsewhere.hostname = outward;
        await expect(fetch(elsewhere).catch((error: Error) => error.cause)).resolves.toMatchObject({
          code: 'ECONNREFUSED',
        });
      }
    }
  });

  it("gives the engine a metrics port of its own when METRICS_PORT is set: the one after the manager's", async () => {
    const port = await findTwoFreePorts();
    await startOnTestDatabase({ METRICS_PORT: String(port) });
    const scrape = async (at: number) => (await fetch(`http://127.0.0.1:${at}/metrics`)).text();
    expect(await scrape(port)).toContain('agentplane_publish_duration_seconds');
    expect(await scrape(port + 1)).toContain('agentplane_runs_started_total');
  });

  it('brings up an embedded PostgreSQL when DATABASE_URL is unset, and a restart keeps the data', async () => {
    const dir = await dataDir();
    // PostgreSQL cannot listen on port 0 and report the port, so this one is probed.
    const postgresPort = String(await findFreePort());
    const env = { DATABASE_URL: '', AGENTPLANE_DATA_DIR: dir, EMBEDDED_POSTGRES_PORT: postgresPort };

    const first = await start(env);
    const password = demoPassword(first.launched);
    expect(password).toBeDefined();
    // The welcome text names the data directory in use, not the default one.
    expect(first.launched.output()).toContain(`kept in ${path.join(dir, 'demo.json')}`);
    expect(first.launched.output()).not.toContain('.data/demo.json');
    // The launcher's own PostgreSQL, where the pool has its default name.
    expect(first.launched.output()).toContain('(pool "default"');
    const agentId = demoAgentId(first.launched);
    expect(existsSync(path.join(dir, 'postgres', 'PG_VERSION'))).toBe(true);
    // The pool's credentials are files only this user reads.
    for (const file of ['database-url', 'pool-key']) {
      expect(statSync(path.join(dir, 'engine', file)).mode & 0o777).toBe(0o600);
    }
    // Left as a data directory of the dedicated demo engine's days is: its agent on an engine of its own,
    // and that engine's key beside the pool's files.
    const demo = await signInAsDemo(first.manager, first.launched);
    const agent = await demo.expect<DemoAgentBody & { id: string }>(200, 'GET', `/agents/${agentId}`);
    const { name, description, framework, agent: config, resources } = agent;
    await demo.expect(200, 'PATCH', `/agents/${agentId}`, {
      ...{ name, description, framework, agent: config, resources },
      deployment: { mode: 'dedicated' },
      engine_url: 'http://localhost:8001',
    });
    await writeFile(path.join(dir, 'engine', 'agent-key'), "an older start's\n", { mode: 0o600 });
    first.launched.child.kill('SIGINT');
    expect(await first.launched.exit).toBe(0);
    await expect(fetch(`http://127.0.0.1:${postgresPort}`).catch((error: Error) => error.cause)).resolves.toMatchObject(
      {
        code: 'ECONNREFUSED',
      },
    );

    // With OPENAI_API_KEY (and OPENAI_BASE_URL, here a local stand-in), the demo agent uses a real model,
    // which is offered the tools of the bundled MCP server.
    const model = await startFakeOpenAiServer();
    cleanups.push(() => model.close());
    model.script({ text: ['Hello from the configured model.'] });
    const second = await start({ ...env, OPENAI_API_KEY: 'sk-launcher-test', OPENAI_BASE_URL: model.baseUrl });
    expect(second.launched.output()).toContain(`(agent ${agentId})`);
    expect(second.launched.output()).not.toContain('with password');
    expect(second.launched.output()).toContain(`the password is in ${path.join(dir, 'demo.json')}`);
    expect(second.launched.output()).toContain('[migrate] database is up to date');
    // The dedicated demo agent is back on the pool, and the engine key nothing uses is gone.
    expect(second.demoAgent).toBe(`${second.engine}/agents/${agentId}`);
    const again = await signInAsDemo(second.manager, first.launched);
    expect(await again.expect(200, 'GET', `/agents/${agentId}`)).toMatchObject({
      deployment: { mode: 'pool', pool: 'default' },
    });
    expect(existsSync(path.join(dir, 'engine', 'agent-key'))).toBe(false);
    const reply = await runDemoAgent(second.demoAgent, second.launched.output());
    expect(reply).toContain('Hello from the configured model.');
    expect(reply).toContain('"type":"RUN_FINISHED"');
    expect(model.requests[0]?.authorization).toBe('Bearer sk-launcher-test');
    expect(model.requests[0]?.body.tools?.map((tool) => tool.function.name)).toContain('everything__echo');
    second.launched.child.kill('SIGINT');
    expect(await second.launched.exit).toBe(0);
  });

  it('takes its services down with it when it is killed outright', async () => {
    const { launched, manager, engine } = await startOnTestDatabase();
    launched.child.kill('SIGKILL');
    await launched.exit;
    const refuses = (url: string) =>
      fetch(url).then(
        () => false,
        () => true,
      );
    await waitUntil(() => refuses(`${manager}/api/v1/healthz`), { what: 'the orphaned manager to exit' });
    await waitUntil(() => refuses(`${engine}/health`), { what: 'the orphaned engine to exit' });
  });

  it('exits non-zero with the reason when the database cannot be reached', async () => {
    const launched = launch({
      DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none',
      AGENTPLANE_DATA_DIR: await dataDir(),
    });
    running.push(launched);
    expect(await launched.exit).toBe(1);
    expect(launched.output()).toMatch(/\[launcher\] failed to start: .*ECONNREFUSED/);
  });
});
