// What PostgreSQL cannot store, coming from the agent's side instead of the client's: a model that
// streams a NUL and a lone surrogate, and an MCP tool whose result holds them. The run still succeeds
// and its thread is stored, each such character U+FFFD in the live stream, the run's event log (a
// rejoin replays the same events) and the thread alike.
import { randomUUID } from 'node:crypto';
import { type BaseEvent, EventType } from '@ag-ui/core';
import { findJsonProblem } from '@agentplane/contracts';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, makeRunAgentInput, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { type EverythingHttpServer, startEverythingHttpServer } from '../testing/everything-server.js';
import { joinText, listTypes, readEventStream } from '../testing/read-event-stream.js';
import { startDatabaseEngine } from '../testing/test-engine.js';

let database: TestDatabase;
let model: FakeOpenAiServer;
let everything: EverythingHttpServer;
let engine: RunningEngine;

beforeAll(async () => {
  database = await createTestDatabase();
  [model, everything] = await Promise.all([startFakeOpenAiServer(), startEverythingHttpServer()]);
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  const agentId = (await makeAgent(database.prisma, workspaceId)).id;
  const config = makeLlmEngineConfig({
    agentId,
    workspaceId,
    model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
    mcpServers: [{ name: 'remote', transport: 'streamable_http', url: everything.url }],
  });
  await writeConfigRow(database.prisma, { agentId, workspaceId }, 1, config);
  engine = await startDatabaseEngine(database, agentId);
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([everything?.stop(), model?.close()]);
  await database?.drop();
});

async function getJson<T>(path: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${engine.url}${path}`);
  return { status: response.status, body: (await response.json()) as T };
}

describe('a run whose model and tool produce a NUL and a lone surrogate', () => {
  it('succeeds, and its stream, its event log and its thread hold U+FFFD in their place', async () => {
    model.script(
      // The arguments are JSON text: the tool is given a real NUL and a real lone surrogate.
      { toolCalls: [{ id: 'call_echo', name: 'remote__echo', arguments: ['{"message":"tool\\u0000said\\ud800"}'] }] },
      { text: ['model\u0000said', '\udc00', ' done'] },
    );
    const threadId = `thread-${randomUUID()}`;
    const body = { ...makeRunAgentInput('echo this'), threadId };
    const response = await fetch(`${engine.url}/agent/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const live = (await readEventStream(response)).events;

    expect(listTypes(live).at(-1)).toBe(EventType.RUN_FINISHED);
    expect((await getJson<{ status: string }>(`/agent/runs/${body.runId}`)).body.status).toBe('succeeded');
    const result = live.find((event) => event.type === EventType.TOOL_CALL_RESULT) as BaseEvent & { content: string };
    const thread = await getJson<{ messages: { role: string; content?: string }[] }>(`/agent/threads/${threadId}`);
    expect(thread.status).toBe(200);
    expect(thread.body.messages.map(({ role, content }) => ({ role, content }))).toEqual([
      { role: 'user', content: 'echo this' },
      { role: 'assistant', content: undefined },
      { role: 'tool', content: result.content },
      { role: 'assistant', content: 'model\uFFFDsaid\uFFFD done' },
    ]);

    expect(findJsonProblem(live, { maxDepth: 32 })).toBeUndefined();
    expect(result.content).toContain('tool\uFFFDsaid\uFFFD');
    expect(joinText(live)).toBe('model\uFFFDsaid\uFFFD done');
    const rejoined = await fetch(`${engine.url}/agent/runs/${body.runId}/stream`);
    expect((await readEventStream(rejoined)).events).toEqual(live);
  });
});
