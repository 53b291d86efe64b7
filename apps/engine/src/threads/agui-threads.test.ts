// The thread rule of /agent/run in database mode: a run that sends only its new message continues
// the stored thread; a run that sends its own history is taken as is and nothing is stored twice.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { joinText, readEventStream } from '../testing/read-event-stream.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { aguiThreadKey } from './agui-threads.js';

let database: TestDatabase;
let model: FakeOpenAiServer;
let engine: RunningEngine;

let agentId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  model = await startFakeOpenAiServer();
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  agentId = agent.id;
  const config = makeLlmEngineConfig({
    agentId: agent.id,
    workspaceId: workspace.id,
    model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
  });
  await database.prisma.engineConfig.create({
    data: { agentId: agent.id, workspaceId: workspace.id, version: 1n, config: config as object },
  });
  engine = await startDatabaseEngine(database, agent.id, { ENGINE_CONFIG_POLL_MS: '50' });
  await waitUntil(async () => (await fetch(`${engine.url}/health`)).status === 200, { what: 'the config to load' });
});

afterAll(async () => {
  await engine?.shutdown();
  await model?.close();
  await database?.drop();
});

type Message = { id: string; role: string; content?: string };

async function run(threadId: string, messages: Message[]): Promise<string> {
  const response = await fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ threadId, runId: `run-${randomUUID()}`, messages, tools: [], context: [] }),
  });
  expect(response.status).toBe(200);
  return joinText((await readEventStream(response)).events);
}

const seen = (index: number) => model.requests[index]?.body.messages.map(({ role, content }) => ({ role, content }));

describe('runs on a known threadId', () => {
  it('continue the stored thread when the client sends only the new message', async () => {
    model.script({ text: ['Hello Ada.'] }, { text: ['Your name is Ada.'] });
    const before = model.requests.length;
    expect(await run('thread-a', [{ id: 'u1', role: 'user', content: 'I am Ada.' }])).toBe('Hello Ada.');
    await run('thread-a', [{ id: 'u2', role: 'user', content: 'Who am I?' }]);
    expect(seen(before + 1)).toEqual([
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);
  });

  it('take a history the client sends as it is, and store only what the thread lacks', async () => {
    model.script({ text: ['first'] }, { text: ['second'] }, { text: ['third'] });
    const before = model.requests.length;
    await run('thread-b', [{ id: 'b1', role: 'user', content: 'one' }]);
    const history = [
      { id: 'b1', role: 'user', content: 'one' },
      { id: 'client-a1', role: 'assistant', content: 'first' },
      { id: 'b2', role: 'user', content: 'two' },
    ];
    await run('thread-b', history);
    expect(seen(before + 1)).toEqual(history.map(({ role, content }) => ({ role, content })));
    const stored = await database.prisma.conversationMessage.findMany({
      where: { thread: { externalKey: aguiThreadKey(agentId, undefined, 'thread-b') } },
      orderBy: { seq: 'asc' },
    });
    const ids = stored.map((row) => (row.message as { id: string }).id);
    expect(ids.filter((id) => id === 'b1')).toHaveLength(1);
    expect(ids).toContain('b2');
  });

  it('start empty for a threadId never seen', async () => {
    model.script({ text: ['fresh'] });
    const before = model.requests.length;
    await run('thread-new', [{ id: 'n1', role: 'user', content: 'hi' }]);
    expect(seen(before)).toEqual([{ role: 'user', content: 'hi' }]);
  });
});
