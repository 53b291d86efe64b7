// Runs the real `pnpm start` entry point as a child process, as a newcomer would.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@agentplane/db/embedded';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { ManagerClient } from '@agentplane/manager-client';
import { startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterEach, describe, expect, it } from '@jest/globals';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

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
  return {
    launched,
    manager: `http://127.0.0.1:${portAfter('Manager API')}`,
    engine: `http://127.0.0.1:${portAfter('Demo engine')}`,
  };
}

async function runDemoAgent(engine: string, output: string): Promise<string> {
  const token = output.match(/Authorization: Bearer ([\w.-]+)'/)?.[1];
  const body = output.match(/-d '(\{"threadId".*\})'/)?.[1];
  expect(token).toBeDefined();
  const response = await fetch(`${engine}/agent/run`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body,
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('pnpm start', () => {
  it('migrates DATABASE_URL, seeds a demo agent, serves it from an engine, and stops cleanly on SIGTERM', async () => {
    const database: TestDatabase = await createTestDatabase({ migrated: false });
    cleanups.push(() => database.drop());
    const { launched, manager, engine } = await start({
      DATABASE_URL: database.url,
      AGENTPLANE_DATA_DIR: await dataDir(),
    });
    expect(launched.output()).toContain('[migrate] applied');
    expect((await fetch(`${manager}/api/v1/readyz`)).status).toBe(200);
    const health = await fetch(`${engine}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', config_version: 1 });

    // The console comes first, served by the manager, and may reach the demo engine, which knows it.
    const consolePort = launched
      .output()
      .match(/Agentplane is running\.\n {2}Console: +http:\/\/localhost:(\d+)\//)?.[1];
    expect(consolePort).toBe(new URL(manager).port);
    const page = await fetch(`${manager}/agents`, { headers: { Accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toContain(
      "connect-src 'self' http://localhost:* http://127.0.0.1:*",
    );
    const consoleOrigin = `http://localhost:${consolePort}`;
    const cors = await fetch(`${engine}/health`, { headers: { Origin: consoleOrigin } });
    expect(cors.headers.get('access-control-allow-origin')).toBe(consoleOrigin);
    const password = launched.output().match(/with password (\S+)/)?.[1];
    const demo = new ManagerClient(manager);
    await demo.expect(200, 'POST', '/auth/login', { email: 'demo@agentplane.local', password });
    const agentId = launched.output().match(/\(agent ([0-9a-f-]{36})\)/)?.[1];
    const agent = await demo.expect<{ engine_url: string }>(200, 'GET', `/agents/${agentId}`);
    expect(agent.engine_url).toBe(`http://localhost:${new URL(engine).port}`);

    // The printed curl works as printed: a manager-minted token, an SSE run that finishes.
    const stream = await runDemoAgent(engine, launched.output());
    expect(stream).toContain('"type":"RUN_STARTED"');
    expect(stream).toContain('"type":"RUN_FINISHED"');

    launched.child.kill('SIGTERM');
    expect(await launched.exit).toBe(0);
    expect(launched.output()).toContain('[launcher] stopped');
    await expect(fetch(`${manager}/api/v1/healthz`)).rejects.toThrow();
    await expect(fetch(`${engine}/health`)).rejects.toThrow();
  });

  it('keeps tenants off this machine with its own defaults: loopback egress is refused, the manager listens on loopback', async () => {
    const database: TestDatabase = await createTestDatabase({ migrated: false });
    cleanups.push(() => database.drop());
    // Nothing besides what every start needs: no EGRESS_ALLOW, ENGINE_EGRESS_ALLOW nor HOST.
    const { launched, manager, engine } = await start({
      DATABASE_URL: database.url,
      AGENTPLANE_DATA_DIR: await dataDir(),
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

    // Around the manager: the demo engine refuses loopback too, the model's and an MCP server's.
    const agentId = launched.output().match(/\(agent ([0-9a-f-]{36})\)/)?.[1];
    const demo = new ManagerClient(manager);
    const password = launched.output().match(/with password (\S+)/)?.[1];
    await demo.expect(200, 'POST', '/auth/login', { email: 'demo@agentplane.local', password });
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
    const health = async () => (await (await fetch(`${engine}/health`)).json()) as Health;
    await waitUntil(async () => (await health()).config_version === 2, { what: 'the rewritten config to be applied' });
    expect((await health()).mcp.find((server) => server.name === 'local')?.error).toMatch(/ENGINE_EGRESS_ALLOW/);
    const run = await runDemoAgent(engine, launched.output());
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
    const database: TestDatabase = await createTestDatabase({ migrated: false });
    cleanups.push(() => database.drop());
    const port = await findTwoFreePorts();
    await start({ DATABASE_URL: database.url, AGENTPLANE_DATA_DIR: await dataDir(), METRICS_PORT: String(port) });
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
    const password = first.launched.output().match(/with password (\S+)/)?.[1];
    expect(password).toBeDefined();
    // The welcome text names the data directory in use, not the default one.
    expect(first.launched.output()).toContain(`kept in ${path.join(dir, 'demo.json')}`);
    expect(first.launched.output()).not.toContain('.data/demo.json');
    const agentId = first.launched.output().match(/\(agent ([0-9a-f-]{36})\)/)?.[1];
    expect(existsSync(path.join(dir, 'postgres', 'PG_VERSION'))).toBe(true);
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
    const login = await fetch(`${second.manager}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'demo@agentplane.local', password }),
    });
    expect(login.status).toBe(200);
    const reply = await runDemoAgent(second.engine, second.launched.output());
    expect(reply).toContain('Hello from the configured model.');
    expect(reply).toContain('"type":"RUN_FINISHED"');
    expect(model.requests[0]?.authorization).toBe('Bearer sk-launcher-test');
    expect(model.requests[0]?.body.tools?.map((tool) => tool.function.name)).toContain('everything__echo');
    second.launched.child.kill('SIGINT');
    expect(await second.launched.exit).toBe(0);
  });

  it('takes its services down with it when it is killed outright', async () => {
    const database: TestDatabase = await createTestDatabase({ migrated: false });
    cleanups.push(() => database.drop());
    const { launched, manager, engine } = await start({
      DATABASE_URL: database.url,
      AGENTPLANE_DATA_DIR: await dataDir(),
    });
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
