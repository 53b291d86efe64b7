// Agent modules that do not load: every class of failure makes /health degraded with its class and an
// error id (the reason, which may hold paths or what the import threw, goes to the log under that id)
// and runs answer 503 problem+json; in database mode the next published config loads the module afresh,
// so fixing the reference and publishing recovers without a restart. (A file fixed in place is
// covered in load-agent-module.test.ts, under plain Node: jest keeps the first text of a file it read.)
import { randomUUID } from 'node:crypto';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BaseEvent, EventType, HttpAgent } from '@ag-ui/client';
import { createTestDatabase, makeAgent, makeWorkspace, ScratchDirs, type TestDatabase } from '@agentplane/db/testing';
import { makeRunAgentInput, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import { type CapturedLogs, captureLogs } from '../../testing/captured-logs.js';
import { writeConfigRow } from '../../testing/engine-config-rows.js';
import { makeCustomEngineConfig, makeLangGraphEngineConfig } from '../../testing/module-engine-configs.js';
import { startDatabaseEngine, startFileEngine } from '../../testing/test-engine.js';

type Health = {
  status: string;
  config_version: number;
  agent_module?: { status: string; code: string; error: string; error_id: string };
};

const CUSTOM_FIXTURES = fileURLToPath(new URL('../custom/fixtures', import.meta.url));

// A custom agent needing no package: any object whose run(input) returns something subscribable will do.
const GOOD_AGENT = `
export const createAgent = () => ({
  run: (input) => ({
    subscribe: (observer) => {
      const { threadId, runId } = input;
      for (const event of [
        { type: 'RUN_STARTED', threadId, runId },
        { type: 'TEXT_MESSAGE_START', messageId: 'm-' + runId, role: 'assistant' },
        { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-' + runId, delta: 'recovered' },
        { type: 'TEXT_MESSAGE_END', messageId: 'm-' + runId },
        { type: 'RUN_FINISHED', threadId, runId },
      ]) observer.next(event);
      observer.complete();
      return { unsubscribe() {} };
    },
  }),
});
`;

const health = async (engine: RunningEngine) => {
  const response = await fetch(`${engine.url}/health`);
  return { status: response.status, body: (await response.json()) as Health };
};

async function postRun(engine: RunningEngine) {
  return fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(makeRunAgentInput('hi')),
  });
}

const ERROR_ID = /^[0-9a-f-]{36}$/;

/** Public answers carry the class of failure and an error id; the reason is in the log line with that id only. */
async function expectUnavailable(engine: RunningEngine, logs: CapturedLogs, code: string, reason: RegExp) {
  const { status, body } = await health(engine);
  expect(status).toBe(200);
  expect(body.status).toBe('degraded');
  expect(body.agent_module).toEqual({
    status: 'failed',
    code,
    error: expect.any(String),
    error_id: expect.any(String),
  });
  const errorId = body.agent_module?.error_id ?? '';
  expect(errorId).toMatch(ERROR_ID);
  expect(JSON.stringify(body)).not.toMatch(reason);
  expect(logs.withErrorId(errorId)).toEqual([
    expect.objectContaining({ err: expect.objectContaining({ code, message: expect.stringMatching(reason) }) }),
  ]);
  const run = await postRun(engine);
  expect(run.status).toBe(503);
  expect(run.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const { detail } = (await run.json()) as { detail: string };
  expect(detail).toContain(errorId);
  expect(detail).not.toMatch(reason);
}

let agentsDir: string;
const scratch = new ScratchDirs();

beforeAll(async () => {
  agentsDir = await scratch.make('engine-agents-');
  await writeFile(path.join(agentsDir, 'good.js'), GOOD_AGENT);
  await writeFile(path.join(agentsDir, 'syntax.js'), 'export const createAgent = ;\n');
  await writeFile(path.join(agentsDir, 'number.js'), 'export const createAgent = 1;\n');
  await writeFile(path.join(agentsDir, 'throws.js'), "throw new Error('cannot start: no settings');\n");
  // A file that loads, reached through a symlink the tenant names but the engine must not follow out.
  const elsewhere = await scratch.make('engine-elsewhere-');
  await writeFile(path.join(elsewhere, 'agent.js'), GOOD_AGENT);
  await symlink(path.join(elsewhere, 'agent.js'), path.join(agentsDir, 'escape.js'));
});

afterAll(() => scratch.removeAll());

describe('each class of module error makes the engine degraded and its runs 503', () => {
  const cases: [string, string, 'CUSTOM' | 'LANGGRAPH', string, RegExp][] = [
    ['a missing file', 'missing_file', 'CUSTOM', 'nowhere/agent.js:createAgent', /nowhere\/agent\.js does not exist/],
    ['a missing export', 'missing_export', 'CUSTOM', 'good.js:makeAgent', /no export "makeAgent".*createAgent/],
    ['a module that does not parse', 'load_failed', 'CUSTOM', 'syntax.js:createAgent', /syntax\.js failed to load/],
    ['a module that throws', 'load_failed', 'LANGGRAPH', 'throws.js:graph', /cannot start: no settings/],
    ['a symlink out of the agents directory', 'path_escape', 'CUSTOM', 'escape.js:createAgent', /outside/],
  ];
  it.each(cases)('%s (%s)', async (_name, code, framework, reference, reason) => {
    const config = framework === 'CUSTOM' ? makeCustomEngineConfig(reference) : makeLangGraphEngineConfig(reference);
    const logs = captureLogs();
    const engine = await startFileEngine(config, {
      env: { ENGINE_AGENTS_DIR: agentsDir },
      logDestination: logs.destination,
    });
    try {
      await expectUnavailable(engine, logs, code, reason);
    } finally {
      await engine.shutdown();
    }
  });

  const wrongTypes: [string, 'CUSTOM' | 'LANGGRAPH', string, RegExp][] = [
    ['a custom export that is no function', 'CUSTOM', 'wrong-exports.js:notAFactory', /a number, not a factory/],
    ['a factory that returns no agent', 'CUSTOM', 'wrong-exports.js:returnsNoAgent', /not an AG-UI AbstractAgent/],
    ['a graph export that is no graph', 'LANGGRAPH', 'wrong-exports.js:returnsNoAgent', /not a LangGraph graph/],
  ];
  it.each(wrongTypes)('%s (wrong_type)', async (_name, framework, reference, reason) => {
    const config = framework === 'CUSTOM' ? makeCustomEngineConfig(reference) : makeLangGraphEngineConfig(reference);
    const logs = captureLogs();
    const engine = await startFileEngine(config, {
      env: { ENGINE_AGENTS_DIR: CUSTOM_FIXTURES },
      logDestination: logs.destination,
    });
    try {
      await expectUnavailable(engine, logs, 'wrong_type', reason);
    } finally {
      await engine.shutdown();
    }
  });

  it.each([
    ['an absolute module path', () => `${path.join(agentsDir, 'good.js')}:createAgent`],
    ['a path that climbs out', () => '../good.js:createAgent'],
  ])('does not start with %s: the config itself is invalid', async (_case, reference) => {
    await expect(
      startFileEngine(makeCustomEngineConfig(reference()), { env: { ENGINE_AGENTS_DIR: agentsDir } }),
    ).rejects.toThrow(/agent\.config\.module/);
  });
});

describe('recovery in database mode', () => {
  let database: TestDatabase;
  let agentId: string;
  let workspaceId: string;
  let engine: RunningEngine | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    const workspace = await makeWorkspace(database.prisma);
    agentId = (await makeAgent(database.prisma, workspace.id)).id;
    workspaceId = workspace.id;
  });

  afterAll(async () => {
    await engine?.shutdown();
    await database?.drop();
  });

  async function publish(version: number, reference: string) {
    const config = makeCustomEngineConfig(reference, { agentId, workspaceId });
    await writeConfigRow(database.prisma, { agentId, workspaceId }, version, config);
  }

  const servedVersion = async (expected: number) =>
    waitUntil(async () => (await health(engine as RunningEngine)).body.config_version === expected, {
      what: `version ${expected} to be applied`,
    });

  async function runWithClient() {
    const agent = new HttpAgent({
      url: `${(engine as RunningEngine).url}/agent/run`,
      initialMessages: [{ id: randomUUID(), role: 'user', content: 'hi' }],
    });
    const events: BaseEvent[] = [];
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    return events;
  }

  it('goes through every error class and recovers once a config whose module loads is published', async () => {
    await publish(1, 'missing.js:createAgent');
    const logs = captureLogs();
    engine = await startDatabaseEngine(
      database,
      agentId,
      { ENGINE_CONFIG_POLL_MS: '100', ENGINE_AGENTS_DIR: agentsDir },
      { logDestination: logs.destination },
    );
    await servedVersion(1);
    await expectUnavailable(engine, logs, 'missing_file', /missing\.js does not exist/);

    await publish(2, 'good.js:nothing');
    await servedVersion(2);
    await expectUnavailable(engine, logs, 'missing_export', /no export "nothing"/);

    await publish(3, 'syntax.js:createAgent');
    await servedVersion(3);
    await expectUnavailable(engine, logs, 'load_failed', /failed to load/);

    await publish(4, 'number.js:createAgent');
    await servedVersion(4);
    await expectUnavailable(engine, logs, 'wrong_type', /a number, not a factory/);

    await publish(5, 'good.js:createAgent');
    await servedVersion(5);
    expect((await health(engine)).body).toMatchObject({ status: 'ok', config_version: 5 });
    expect((await health(engine)).body.agent_module).toBeUndefined();
    const events = await runWithClient();
    expect(events.map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
  });
});
