// Database mode against a real PostgreSQL: the engine reads its engine_configs row, follows new
// versions by polling and by NOTIFY, refuses invalid ones, survives an outage and notices a deletion.
import { randomUUID } from 'node:crypto';
import type { TEngineConfigInput } from '@agentplane/contracts';
import { createAgentKeyring } from '@agentplane/db';
import {
  createTestDatabase,
  makeAgent,
  makeWorkspace,
  TEST_PLATFORM_KEY,
  type TestDatabase,
} from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import type { RunningEngine } from '../start-engine.js';
import { listenerPids, notifyConfigChanged, writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { joinText, readEventStream } from '../testing/read-event-stream.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

type Health = { status: string; config_version: number; db: string; rejected_config?: { version: number } };

let database: TestDatabase;
let agentId: string;
let workspaceId: string;
const engines: RunningEngine[] = [];

async function getJson<T>(url: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as T };
}

const servedName = async (engine: RunningEngine) =>
  (await getJson<{ agent?: { name: string } }>(`${engine.url}/agent/config`)).body.agent?.name;
const health = (engine: RunningEngine) => getJson<Health>(`${engine.url}/health`);

const configNamed = (name: string): TEngineConfigInput => makeLlmEngineConfig({ agentId, workspaceId, name });

const writeConfig = (version: number, config: unknown) =>
  writeConfigRow(database.prisma, { agentId, workspaceId }, version, config);
const notify = () => notifyConfigChanged(database.prisma, agentId);

async function startDbEngine(pollMs: number, env: Record<string, string> = {}): Promise<RunningEngine> {
  const engine = await startDatabaseEngine(database, agentId, {
    ENGINE_CONFIG_POLL_MS: String(pollMs),
    ...env,
  });
  engines.push(engine);
  await waitUntil(async () => (await health(engine)).status === 200, { what: 'the first config to load' });
  return engine;
}

const listeners = () => listenerPids(database.prisma);
const countListeners = async () => (await listeners()).length;

/** Whether the engine's LISTEN connection is up on the config channel (listener-pids in engine-config-rows.ts). */
const readSinceListening = async () => (await countListeners()) === 1;

// Well under the minute between polls of an engine that is to hear NOTIFY, and generous for a 100 ms poll.
const SERVED_WITHIN_MS = 20_000;

async function waitUntilServed(engine: RunningEngine, name: string): Promise<void> {
  await waitUntil(async () => (await servedName(engine)) === name, {
    what: `"${name}" to be served`,
    timeoutMs: SERVED_WITHIN_MS,
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  agentId = agent.id;
  workspaceId = workspace.id;
});

// One engine at a time, so the LISTEN connections counted on the database are the current engine's.
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.shutdown()));
  if (database !== undefined) {
    await waitUntil(async () => (await countListeners()) === 0, { what: 'the LISTEN connection to close' });
  }
});

afterAll(async () => {
  await database?.drop();
});

describe('following the engine_configs row', () => {
  it('loads its own row at start', async () => {
    await writeConfig(1, configNamed('v1'));
    const engine = await startDbEngine(60_000);
    expect((await health(engine)).body).toMatchObject({ status: 'ok', config_version: 1, db: 'ok' });
    expect(await servedName(engine)).toBe('v1');
  });

  it('follows a new version by polling when no NOTIFY comes', async () => {
    await writeConfig(20, configNamed('v20'));
    const engine = await startDbEngine(100);
    await waitUntil(readSinceListening, { what: 'the read after LISTEN connected' });
    await writeConfig(21, configNamed('v21'));
    await waitUntilServed(engine, 'v21');
    expect((await health(engine)).body.config_version).toBe(21);
  });

  it('with ENGINE_CONFIG_LISTEN=false, opens no LISTEN connection and still follows by polling', async () => {
    await writeConfig(25, configNamed('v25'));
    const engine = await startDbEngine(100, { ENGINE_CONFIG_LISTEN: 'false' });
    await writeConfig(26, configNamed('v26'));
    await waitUntilServed(engine, 'v26');
    expect(await countListeners()).toBe(0);
  });

  it('serves a new version on NOTIFY, with the next poll a minute away', async () => {
    await writeConfig(30, configNamed('v30'));
    const engine = await startDbEngine(60_000);
    await waitUntil(readSinceListening, { what: 'the read after LISTEN connected' });
    await writeConfig(31, configNamed('v31'));
    await notify();
    await waitUntilServed(engine, 'v31');
  });

  it('refuses an invalid config, keeps serving the previous one, and takes the next valid one', async () => {
    await writeConfig(40, configNamed('v40'));
    const engine = await startDbEngine(100);
    const invalid = {
      ...configNamed('v41'),
      agent: { ...configNamed('v41').agent, config: { model: { provider: 'nope' } } },
    };
    await writeConfig(41, invalid);
    await notify();
    await waitUntil(async () => (await health(engine)).body.rejected_config?.version === 41, { what: 'the rejection' });
    expect((await health(engine)).body).toMatchObject({ status: 'degraded', config_version: 40 });
    expect(await servedName(engine)).toBe('v40');

    await writeConfig(42, configNamed('v42'));
    await notify();
    await waitUntil(async () => (await servedName(engine)) === 'v42', { what: 'v42' });
    expect((await health(engine)).body).toMatchObject({ status: 'ok', config_version: 42 });
    expect((await health(engine)).body.rejected_config).toBeUndefined();
  });

  it("opens secrets sealed with its agent's key, and refuses a config sealed for another agent", async () => {
    const keyring = createAgentKeyring(TEST_PLATFORM_KEY);
    const withSecret = (version: number, sealed: string) =>
      makeLlmEngineConfig({
        agentId,
        workspaceId,
        name: `v${version}`,
        mcpServers: [
          { name: 'tools', transport: 'streamable_http', url: 'http://127.0.0.1:9/mcp', headers: { 'X-Key': sealed } },
        ],
      });
    await writeConfig(50, withSecret(50, keyring.boxFor(agentId).seal('s3cret')));
    const engine = await startDbEngine(100);
    expect(await servedName(engine)).toBe('v50');
    const shown = (await getJson<{ mcp_servers: { headers: Record<string, string> }[] }>(`${engine.url}/agent/config`))
      .body;
    expect(shown.mcp_servers[0]?.headers).toEqual({ 'X-Key': '[redacted]' });

    // A value sealed for another agent, even under the same platform key, does not open with this agent's key.
    await writeConfig(51, withSecret(51, keyring.boxFor(randomUUID()).seal('not yours')));
    await notify();
    await waitUntil(async () => (await health(engine)).body.rejected_config?.version === 51, {
      what: "the other agent's secret to be refused",
    });
    expect(await servedName(engine)).toBe('v50');
  });
});

async function db503Detail(engine: RunningEngine): Promise<string> {
  return (await getJson<{ detail?: string }>(`${engine.url}/health`)).body.detail ?? '';
}

describe('when the database is unreachable', () => {
  let admin: pg.Client;

  beforeAll(async () => {
    admin = await database.connectClient({ admin: true });
  });

  // database.drop() ends the client.
  afterAll(async () => {
    await admin?.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS true`);
  });

  it('keeps its last config with /health degraded, refuses runs it cannot record, then recovers', async () => {
    await writeConfig(60, configNamed('v60'));
    const engine = await startDbEngine(100);
    await waitUntil(async () => (await countListeners()) === 1, { what: 'the LISTEN connection' });
    const runOnce = (runId: string) =>
      fetch(`${engine.url}/agent/run`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          threadId: 't',
          runId,
          messages: [{ id: runId, role: 'user', content: 'still there?' }],
        }),
      });

    await admin.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database.name]);
    await waitUntil(async () => (await health(engine)).body.db === 'unreachable', { what: 'the outage to show' });
    expect((await health(engine)).body).toMatchObject({ status: 'degraded', config_version: 60 });

    // A run that cannot be recorded is not served unrecorded: a 503 the client may retry, before any event.
    const refused = await runOnce('during-outage');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/could not be recorded/);

    await admin.query(`ALTER DATABASE "${database.name}" ALLOW_CONNECTIONS true`);
    await waitUntil(async () => (await health(engine)).body.status === 'ok', { what: 'the database to be back' });
    // The LISTEN connection came back too: a notified change is picked up without waiting for a poll.
    await waitUntil(async () => (await countListeners()) === 1, { what: 'LISTEN to reconnect', timeoutMs: 20_000 });
    await writeConfig(61, configNamed('v61'));
    await notify();
    await waitUntil(async () => (await servedName(engine)) === 'v61', { what: 'v61 after recovery' });
    const run = await runOnce('after-outage');
    expect(run.status).toBe(200);
    const { events } = await readEventStream(run);
    expect(joinText(events)).toBe('You said: still there?');
    expect(events.at(-1)?.type).toBe('RUN_FINISHED');
  });
});

describe('the LISTEN connection', () => {
  it('comes back after it was cut and hears NOTIFY again', async () => {
    await writeConfig(65, configNamed('v65'));
    const engine = await startDbEngine(60_000);
    await waitUntil(async () => (await countListeners()) === 1, { what: 'the LISTEN connection' });
    const [cut] = await listeners();
    await database.prisma.$queryRawUnsafe(`SELECT pg_terminate_backend(${cut})`);
    await waitUntil(
      async () => {
        const pids = await listeners();
        return pids.length === 1 && pids[0] !== cut;
      },
      { what: 'LISTEN to reconnect' },
    );
    await waitUntil(readSinceListening, { what: 'the read after LISTEN reconnected' });
    await writeConfig(66, configNamed('v66'));
    await notify();
    await waitUntilServed(engine, 'v66');
  });
});

describe('when the agent is deleted', () => {
  it('answers runs and /health with 503', async () => {
    await writeConfig(70, configNamed('v70'));
    const engine = await startDbEngine(100);
    await database.prisma.engineConfig.delete({ where: { agentId } });
    await waitUntil(async () => (await health(engine)).status === 503, { what: 'the deletion to be noticed' });
    expect(await db503Detail(engine)).toMatch(/deleted/);
    const run = await fetch(`${engine.url}/agent/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ threadId: 't', runId: 'r', messages: [] }),
    });
    expect(run.status).toBe(503);
    expect(run.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
