// Runs pinned to an agent version (an experiment's), queued as the manager queues them, on a real engine
// against a real PostgreSQL with the mock model: each runs with its version's config, read from
// pinned_engine_configs and opened with the agent's key, and records that version; one pinned to the
// version served runs on the served snapshot; one whose version cannot be had fails with
// `version_unavailable`; a version's runs share one snapshot, closed once idle; and experiment threads
// are listed to nobody but their own subject.
import { randomUUID } from 'node:crypto';
import { createAgentSecretBox, deriveAgentKey } from '@agentplane/db';
import {
  createTestDatabase,
  makeAgent,
  makeWorkspace,
  TEST_PLATFORM_KEY,
  type TestDatabase,
} from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { type AgentRow, writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import {
  type FinishedRun,
  queueExperimentRun,
  readFinishedRun,
  readRunReply,
  writePinnedConfigRow,
} from '../testing/experiment-runs.js';
import { type ManagerIssuer, startManagerIssuer } from '../testing/manager-issuer.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { startWebSocketMcpServer, type WebSocketMcpServer } from '../testing/websocket-mcp-server.js';

let database: TestDatabase;
let agent: AgentRow;
let manager: ManagerIssuer;
let servedTools: WebSocketMcpServer;
let pinnedTools: WebSocketMcpServer;
let engine: RunningEngine | undefined;

const SHOUT = 'call shout {"text":"hi"}';
const SERVED_VERSION = 3;

// Every version's model key is sealed, as the manager seals them: a pinned config is opened as the
// served one is, with the agent's key (a dedicated engine's placement key).
function versionConfig(name: string, tools: WebSocketMcpServer | undefined, sealedFor = agent.agentId) {
  const box = createAgentSecretBox(deriveAgentKey(TEST_PLATFORM_KEY, sealedFor), sealedFor);
  return makeLlmEngineConfig({
    ...agent,
    name,
    model: { provider: 'mock', name: 'echo', apiKey: box.seal(`sk-${name}`) },
    mcpServers: tools === undefined ? [] : [{ name: 'socket', transport: 'websocket', url: tools.url }],
  });
}

const startEngine = (idleMs: string) =>
  startDatabaseEngine(database, agent.agentId, {
    ENGINE_AUTH: 'oidc',
    ENGINE_MANAGER_ISSUER: manager.issuer,
    ENGINE_PINNED_IDLE_MS: idleMs,
  });

async function runPinned(version: number | null, content = SHOUT): Promise<FinishedRun & { reply: string }> {
  const { runId } = await queueExperimentRun(database.prisma, {
    agentId: agent.agentId,
    issuer: manager.issuer,
    version,
    content,
  });
  let finished: FinishedRun | undefined;
  await waitUntil(
    async () => {
      finished = await readFinishedRun(database.prisma, agent.agentId, runId);
      return finished !== undefined;
    },
    { what: `the run pinned to ${version} to end` },
  );
  return { ...(finished as FinishedRun), reply: await readRunReply(database.prisma, agent.agentId, runId) };
}

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  agent = { agentId: (await makeAgent(database.prisma, workspace.id)).id, workspaceId: workspace.id };
  manager = await startManagerIssuer();
  servedTools = await startWebSocketMcpServer();
  pinnedTools = await startWebSocketMcpServer();
  // Version 1 has no tools, version 2 its own server; the served version 3 has a server too, and no
  // pinned row: a run pinned to it must not need one.
  await writePinnedConfigRow(database.prisma, agent, 1, versionConfig('v1', undefined));
  await writePinnedConfigRow(database.prisma, agent, 2, versionConfig('v2', pinnedTools));
  await writePinnedConfigRow(database.prisma, agent, 4, { agent: 'not a config' });
  await writePinnedConfigRow(database.prisma, agent, 5, versionConfig('v5', undefined, randomUUID()));
  await writeConfigRow(database.prisma, agent, SERVED_VERSION, versionConfig('v3', servedTools));
  engine = await startEngine('600000');
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([servedTools?.close(), pinnedTools?.close(), manager?.close()]);
  await database?.drop();
});

describe('a run pinned to an agent version', () => {
  it("runs with that version's config, not the served one's, and records that version", async () => {
    const pinned = await runPinned(1);
    expect(pinned).toMatchObject({ status: 'succeeded', agentVersion: 1, reply: 'There is no tool named shout.' });
    const unpinned = await runPinned(null);
    expect(unpinned).toMatchObject({ status: 'succeeded', agentVersion: SERVED_VERSION });
    expect(unpinned.reply).toBe('The tool answered: HI');
  });

  it('is counted in usage as any run: its tokens are on its record', async () => {
    const { runId } = await queueExperimentRun(database.prisma, {
      agentId: agent.agentId,
      issuer: manager.issuer,
      version: 1,
      content: 'two words',
    });
    await waitUntil(async () => (await readFinishedRun(database.prisma, agent.agentId, runId)) !== undefined, {
      what: 'the pinned run to end',
    });
    const row = await database.prisma.agentRun.findUniqueOrThrow({
      where: { agentId_id: { agentId: agent.agentId, id: runId } },
    });
    // The mock model's figures: "two words" in, "You said: two words" streamed a word at a time.
    expect(row.usage).toMatchObject({ input_tokens: 2, output_tokens: 4 });
  });

  it("shares one snapshot, and one MCP session, among its version's runs", async () => {
    const before = pinnedTools.sessions().opened;
    const runs = [await runPinned(2), await runPinned(2)];
    runs.push(...(await Promise.all([runPinned(2), runPinned(2)])));
    for (const run of runs) {
      expect(run).toMatchObject({ status: 'succeeded', agentVersion: 2, reply: 'The tool answered: HI' });
    }
    expect(pinnedTools.sessions().opened).toBe(before + 1);
  });

  it('runs on the served snapshot when its version is the one served, with no pinned row', async () => {
    const before = servedTools.sessions().opened;
    expect(await runPinned(SERVED_VERSION)).toMatchObject({
      status: 'succeeded',
      agentVersion: SERVED_VERSION,
      reply: 'The tool answered: HI',
    });
    expect(servedTools.sessions().opened).toBe(before);
  });

  it('fails with version_unavailable, naming the version, when its row is missing, invalid or sealed for another agent', async () => {
    for (const version of [7, 4, 5]) {
      const run = await runPinned(version);
      expect(run).toMatchObject({
        status: 'failed',
        errorCode: 'version_unavailable',
        agentVersion: version,
        reply: '',
      });
      expect(run.error).toContain(`Agent version ${version} `);
    }
    // What the run's followers read: its RUN_ERROR, and nothing of another version.
    const { runId } = await queueExperimentRun(database.prisma, {
      agentId: agent.agentId,
      issuer: manager.issuer,
      version: 7,
      content: 'hello',
    });
    await waitUntil(async () => (await readFinishedRun(database.prisma, agent.agentId, runId)) !== undefined, {
      what: 'the run of a missing version to end',
    });
    const events = await database.prisma.runEvent.findMany({ where: { agentId: agent.agentId, runId } });
    expect(events.map((event) => JSON.parse(event.data))).toEqual([
      { type: 'RUN_ERROR', code: 'version_unavailable', message: 'Agent version 7 has no config on this engine.' },
    ]);
  });
});

describe('experiment threads', () => {
  const get = async (path: string, subject: string) =>
    fetch(`${engine?.url}${path}`, {
      headers: { Authorization: `Bearer ${await manager.mint({ aud: agent.agentId, sub: subject })}` },
    });

  it('are listed to no user, nor readable by one: only to their own experiment subject', async () => {
    const experimentId = randomUUID();
    const queued = await queueExperimentRun(database.prisma, {
      agentId: agent.agentId,
      issuer: manager.issuer,
      version: 1,
      content: 'an experiment item',
      experimentId,
    });
    await waitUntil(async () => (await readFinishedRun(database.prisma, agent.agentId, queued.runId)) !== undefined, {
      what: 'the experiment run to end',
    });
    const thread = encodeURIComponent(queued.threadId);
    const run = encodeURIComponent(queued.runId);
    for (const user of ['user-1', `experiment:${randomUUID()}`]) {
      const threads = (await (await get('/agent/threads', user)).json()) as { thread_id: string }[];
      expect(threads.map((listed) => listed.thread_id)).not.toContain(queued.threadId);
      for (const path of [`/agent/threads/${thread}`, `/agent/threads/${thread}/runs`, `/agent/runs/${run}`]) {
        expect((await get(path, user)).status).toBe(404);
      }
    }
    // The experiment's own subject (the manager) does see it: the filter above is the owner's, not a blind spot.
    const own = (await (await get('/agent/threads', queued.subject)).json()) as { thread_id: string }[];
    expect(own.map((listed) => listed.thread_id)).toEqual([queued.threadId]);
  });
});

describe('a pinned version no run uses', () => {
  it('is closed with the engine, and after ENGINE_PINNED_IDLE_MS without runs', async () => {
    await engine?.shutdown();
    engine = undefined;
    // The server hears the close handshake a moment after the engine sent it.
    await waitUntil(async () => pinnedTools.sessions().open === 0, {
      what: "the engine's pinned version to be closed",
    });
    engine = await startEngine('50');
    const opened = pinnedTools.sessions().opened;
    expect(await runPinned(2)).toMatchObject({ status: 'succeeded', reply: 'The tool answered: HI' });
    expect(pinnedTools.sessions().opened).toBe(opened + 1);
    await waitUntil(async () => pinnedTools.sessions().open === 0, { what: 'the idle version to be closed' });
    // The next run builds it again.
    expect(await runPinned(2)).toMatchObject({ status: 'succeeded', reply: 'The tool answered: HI' });
    expect(pinnedTools.sessions().opened).toBe(opened + 2);
  });
});
