// Fault: the PostgreSQL server restarts under running engines. An engine keeps serving its last config
// with /health degraded, reconnects, serves the change published as the server came back (by polling),
// and LISTENs again (a change it hears of only by NOTIFY reaches it).
import {
  type EngineCredentialsEnv,
  issueTestEngineCredentials,
  makeAgent,
  makeWorkspace,
  type RestartablePostgres,
  startRestartablePostgres,
} from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { type AgentRow, listenerPids, notifyConfigChanged, writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { joinText, readEventStream } from '../testing/read-event-stream.js';
import { startTestEngine } from '../testing/test-engine.js';

// One engine only polls (no LISTEN), the other only listens: it polls so rarely that what it serves in
// the test came by its LISTEN connection.
const POLL_MS = 250;
const NEVER_POLL_MS = 600_000;
// Generous bounds for a loaded machine: the waits end on causes, these only stop a broken run.
const WAIT = { timeoutMs: 30_000 };

type Health = { status: string; config_version: number; db: string };

let postgres: RestartablePostgres;
let agent: AgentRow;
// Issued once: issuing again rotates the password under the engine already running.
let credentials: EngineCredentialsEnv;
const engines: RunningEngine[] = [];

beforeAll(async () => {
  postgres = await startRestartablePostgres();
  const { prisma } = postgres.database;
  const workspace = await makeWorkspace(prisma);
  agent = { agentId: (await makeAgent(prisma, workspace.id)).id, workspaceId: workspace.id };
  credentials = await issueTestEngineCredentials(postgres.database, agent.agentId);
}, 120_000);

afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.shutdown()));
  await postgres?.close();
});

const health = async (engine: RunningEngine) => (await (await fetch(`${engine.url}/health`)).json()) as Health;
const servedName = async (engine: RunningEngine) =>
  ((await (await fetch(`${engine.url}/agent/config`)).json()) as { agent?: { name: string } }).agent?.name;
const publish = (version: number) =>
  writeConfigRow(postgres.database.prisma, agent, version, configNamed(`v${version}`));
const configNamed = (name: string) => makeLlmEngineConfig({ ...agent, name });

async function startEngine(pollMs: number, listen: boolean): Promise<RunningEngine> {
  const engine = await startTestEngine({
    ...credentials,
    ENGINE_CONFIG_POLL_MS: String(pollMs),
    ENGINE_CONFIG_LISTEN: String(listen),
  });
  engines.push(engine);
  await waitUntil(async () => (await servedName(engine)) !== undefined, { what: 'the first config', ...WAIT });
  return engine;
}

it('keeps serving through a restart of PostgreSQL, then follows by polling and by NOTIFY again', async () => {
  await publish(1);
  const polling = await startEngine(POLL_MS, false);
  const listening = await startEngine(NEVER_POLL_MS, true);
  await waitUntil(async () => (await listenerPids(postgres.database.prisma)).length === 1, {
    what: 'the listening engine to LISTEN',
    ...WAIT,
  });

  await postgres.stop();
  await waitUntil(async () => (await health(polling)).db === 'unreachable', { what: 'the outage to show', ...WAIT });
  expect(await health(polling)).toMatchObject({ status: 'degraded', config_version: 1 });
  // It keeps its last config, but a run it could not record is refused before any event, for a retry.
  const runOnce = (runId: string) =>
    fetch(`${polling.url}/agent/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ threadId: 't', runId, messages: [{ id: runId, role: 'user', content: 'still there?' }] }),
    });
  const refused = await runOnce('during-outage');
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('5');

  // The first thing written when the server is back, before any engine could have heard of it.
  await postgres.start();
  await publish(2);
  await waitUntil(async () => (await servedName(polling)) === 'v2', { what: 'the poll to serve v2', ...WAIT });
  expect(await health(polling)).toMatchObject({ status: 'ok', db: 'ok', config_version: 2 });
  const run = await runOnce('after-restart');
  expect(run.status).toBe(200);
  expect(joinText((await readEventStream(run)).events)).toBe('You said: still there?');

  // The listening engine never polls: it reconnects its LISTEN (and reads the row on reconnecting) …
  await waitUntil(async () => (await listenerPids(postgres.database.prisma)).length === 1, {
    what: 'the listening engine to LISTEN again',
    ...WAIT,
  });
  await waitUntil(async () => (await servedName(listening)) === 'v2', { what: 'the reconnect to read v2', ...WAIT });
  // … and a change it hears of only by NOTIFY reaches it.
  await publish(3);
  await notifyConfigChanged(postgres.database.prisma, agent.agentId);
  await waitUntil(async () => (await servedName(listening)) === 'v3', { what: 'NOTIFY to bring v3', ...WAIT });
}, 180_000);
