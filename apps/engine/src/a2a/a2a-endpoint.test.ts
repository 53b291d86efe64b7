// The agent as an A2A 1.0 peer, through @a2a-js/sdk's own client, against real engines in both
// placements (a dedicated engine at its root, a pool under /agents/{id}) on a real database: the card,
// each method, a stream cut and subscribed again with nothing lost, tasks scoped to their subject,
// and hostile requests answered as JSON-RPC errors or 4xx, never a 500.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AgentCard, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { provisionEngineRole } from '@agentplane/db';
import {
  createTestDatabase,
  issueTestPoolCredentials,
  makeAgent,
  makeWorkspace,
  TEST_ENGINE_ROLE_SETTINGS,
  type TestDatabase,
} from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { asTask, connectA2a as connect, replyOf, textOf, userMessage } from '../testing/a2a-client.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeCustomEngineConfig } from '../testing/module-engine-configs.js';
import { startTestIssuer, type TestIssuer } from '../testing/oidc-issuer.js';
import { startDatabaseEngine, startFileEngine, startTestEngine } from '../testing/test-engine.js';

const FIXTURES = fileURLToPath(new URL('../agents/custom/fixtures', import.meta.url));

let database: TestDatabase;
let issuer: TestIssuer;
let dedicated: RunningEngine;
let pool: RunningEngine;
let dedicatedAgent: string;
let pooledAgent: string;
let approvalAgent: string;
let ada: string;
let bob: string;

async function newAgent(workspaceId: string, module: string, name: string): Promise<string> {
  const agent = await makeAgent(database.prisma, workspaceId);
  const row = { agentId: agent.id, workspaceId };
  await provisionEngineRole(database.prisma, agent.id, TEST_ENGINE_ROLE_SETTINGS);
  await writeConfigRow(database.prisma, row, 1, makeCustomEngineConfig(module, { ...row, name }));
  return agent.id;
}

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTestIssuer();
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  dedicatedAgent = await newAgent(workspaceId, 'slow-agent.js:createSlowAgent', 'slow dedicated');
  pooledAgent = await newAgent(workspaceId, 'slow-agent.js:createSlowAgent', 'slow pooled');
  approvalAgent = await newAgent(workspaceId, 'approval-agent.js:createAgent', 'approver');
  const env = {
    ENGINE_AGENTS_DIR: FIXTURES,
    ENGINE_AUTH: 'oidc',
    ENGINE_OIDC_ISSUER: issuer.issuer,
    ENGINE_OIDC_AUDIENCE: issuer.audience,
  };
  // Role names are cluster-wide and suites share the server: this suite's pool has a name of its own.
  const credentials = await issueTestPoolCredentials(database, `t_${randomBytes(6).toString('hex')}`, [
    pooledAgent,
    approvalAgent,
  ]);
  [dedicated, pool] = await Promise.all([
    startDatabaseEngine(database, dedicatedAgent, env),
    startTestEngine({ ...credentials, ...env }),
  ]);
  await waitUntil(async () => (await fetch(`${dedicated.url}/health`)).status === 200, { what: 'the config to load' });
  [ada, bob] = await Promise.all([issuer.sign({ sub: 'ada' }), issuer.sign({ sub: 'bob' })]);
});

afterAll(async () => {
  await Promise.all([dedicated?.shutdown(), pool?.shutdown()]);
  await issuer?.close();
  await database?.drop();
});

/** A message that makes the slow agent stream `before` deltas, wait for the gate, then `after` more. */
async function gated(before: number, after: number) {
  const gateFile = path.join(await mkdtemp(path.join(tmpdir(), 'a2a-gate-')), 'open');
  return { text: `${before + after} 1 ${gateFile} ${before}`, open: () => writeFile(gateFile, '') };
}

const chunkText = (update: StreamResponse) => {
  if (update.payload?.$case !== 'artifactUpdate') return undefined;
  const part = update.payload.value.artifact?.parts[0]?.content;
  return part?.$case === 'text' ? part.value : undefined;
};

const stateOf = (update: StreamResponse) =>
  update.payload?.$case === 'statusUpdate'
    ? update.payload.value.status?.state
    : update.payload?.$case === 'task'
      ? update.payload.value.status?.state
      : undefined;

const runRow = (agentId: string, id: string) =>
  database.prisma.agentRun.findUnique({ where: { agentId_id: { agentId, id } } });

function rpc(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Authorization: `Bearer ${ada}`, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const placements = [
  { placement: 'a dedicated engine', base: () => dedicated.url, agentId: () => dedicatedAgent },
  { placement: 'a pool', base: () => `${pool.url}/agents/${pooledAgent}`, agentId: () => pooledAgent },
];

describe.each(placements)('on $placement', ({ base, agentId }) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(base(), ada);
  });

  it('serves its card without a token: its JSON-RPC endpoint, config version, streaming and accepted issuer', async () => {
    const response = await fetch(`${base()}/.well-known/agent-card.json`);
    expect(response.status).toBe(200);
    const card = (await response.json()) as Record<string, unknown>;
    expect(card).toMatchObject({
      version: '1',
      capabilities: { streaming: true },
      supportedInterfaces: [{ url: `${base()}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
        'oidc-1': {
          openIdConnectSecurityScheme: { openIdConnectUrl: `${issuer.issuer}/.well-known/openid-configuration` },
        },
      },
    });
    const fromClient: AgentCard = await client.getAgentCard();
    expect(fromClient.supportedInterfaces[0]?.url).toBe(`${base()}/a2a`);
  });

  it('runs a sent message as a task of source a2a, waited for: completed, the reply its artifact', async () => {
    const task = asTask(await client.sendMessage(userMessage('3 1')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(replyOf(task)).toBe('d1 d2 d3 ');
    expect(task.contextId).not.toBe('');
    expect(await runRow(agentId(), task.id)).toMatchObject({
      source: 'a2a',
      status: 'succeeded',
      threadId: task.contextId,
    });
  });

  it('streams a task: submitted, working, the reply in appended chunks, completed', async () => {
    const updates: StreamResponse[] = [];
    for await (const update of client.sendMessageStream(userMessage('4 1'))) updates.push(update);
    expect(updates[0]?.payload?.$case).toBe('task');
    expect(updates.map(stateOf).filter((state) => state !== undefined)).toEqual([
      TaskState.TASK_STATE_SUBMITTED,
      TaskState.TASK_STATE_WORKING,
      TaskState.TASK_STATE_COMPLETED,
    ]);
    const chunks = updates.filter((update) => update.payload?.$case === 'artifactUpdate');
    expect(chunks.map(chunkText)).toEqual(['d1 ', 'd2 ', 'd3 ', 'd4 ']);
    expect(chunks.map((update) => update.payload?.$case === 'artifactUpdate' && update.payload.value.append)).toEqual([
      false,
      true,
      true,
      true,
    ]);
  });

  it('gets a task from its run record, with its history unless historyLength is 0', async () => {
    const sent = asTask(await client.sendMessage(userMessage('2 1')));
    const task = await client.getTask({ tenant: '', id: sent.id, historyLength: undefined });
    expect(task).toMatchObject({
      id: sent.id,
      contextId: sent.contextId,
      status: { state: TaskState.TASK_STATE_COMPLETED },
    });
    expect(replyOf(task)).toBe('d1 d2 ');
    expect(task.history).toHaveLength(1);
    expect((await client.getTask({ tenant: '', id: sent.id, historyLength: 0 })).history).toEqual([]);
  });

  it("lists the caller's tasks newest first, by context, a bounded page at a time", async () => {
    const contextId = randomUUID();
    const first = asTask(await client.sendMessage(userMessage('1 1', { contextId })));
    const second = asTask(await client.sendMessage(userMessage('1 1', { contextId })));
    await client.sendMessage(userMessage('1 1'));
    const request = {
      tenant: '',
      contextId,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageToken: '',
      statusTimestampAfter: undefined,
    };
    const all = await client.listTasks({ ...request, pageSize: undefined });
    expect(all.tasks.map((task) => task.id)).toEqual([second.id, first.id]);
    expect(all.totalSize).toBe(2);
    const page = await client.listTasks({ ...request, pageSize: 1 });
    expect(page.tasks.map((task) => task.id)).toEqual([second.id]);
    expect(page.nextPageToken).not.toBe('');
    const next = await client.listTasks({ ...request, pageSize: 1, pageToken: page.nextPageToken });
    expect(next.tasks.map((task) => task.id)).toEqual([first.id]);
    expect(next.nextPageToken).toBe('');
    const clamped = await client.listTasks({ ...request, contextId: '', pageSize: 10_000 });
    expect(clamped.pageSize).toBe(100);
    const others = await (await connect(base(), bob)).listTasks({ ...request, pageSize: undefined });
    expect(others.tasks).toEqual([]);
  });

  it('cancels a running task: the answer waits for the run to stop, canceled', async () => {
    const gate = await gated(1, 1);
    const stream = client.sendMessageStream(userMessage(gate.text));
    let taskId = '';
    for await (const update of stream) {
      if (update.payload?.$case === 'task') taskId = update.payload.value.id;
      if (chunkText(update) !== undefined) break;
    }
    const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await runRow(agentId(), taskId))?.status).toBe('cancelled');
    await expect(client.cancelTask({ tenant: '', id: taskId, metadata: undefined })).rejects.toMatchObject({
      name: 'TaskNotCancelableError',
    });
    await gate.open();
  });

  it('is subscribed to again after a cut stream: the task so far, then every later update, nothing lost', async () => {
    const gate = await gated(3, 3);
    const cut = new AbortController();
    const before: StreamResponse[] = [];
    let taskId = '';
    try {
      for await (const update of client.sendMessageStream(userMessage(gate.text), { signal: cut.signal })) {
        before.push(update);
        if (update.payload?.$case === 'task') taskId = update.payload.value.id;
        if (before.filter((u) => chunkText(u) !== undefined).length === 3) cut.abort();
      }
    } catch (error) {
      if (!cut.signal.aborted) throw error;
    }
    // The agent is held at its gate: what follows the snapshot comes live from a task still going.
    const again = client.resubscribeTask({ tenant: '', id: taskId });
    const first = await again.next();
    const snapshot = first.value?.payload?.$case === 'task' ? first.value.payload.value : undefined;
    expect(snapshot?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(replyOf(snapshot as Task)).toBe(before.map(chunkText).join(''));
    await gate.open();
    const after: StreamResponse[] = [];
    for await (const update of again) after.push(update);
    expect(after.map(chunkText).filter((text) => text !== undefined)).toEqual(['d4 ', 'd5 ', 'd6 ']);
    expect(
      after
        .map(stateOf)
        .filter((state) => state !== undefined)
        .at(-1),
    ).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(replyOf(await client.getTask({ tenant: '', id: taskId, historyLength: 0 }))).toBe('d1 d2 d3 d4 d5 d6 ');
  });

  it('tells another subject a task is not found, whatever it asks of it', async () => {
    const task = asTask(await client.sendMessage(userMessage('1 1')));
    const other = await connect(base(), bob);
    const notFound = { name: 'TaskNotFoundError' };
    await expect(other.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toMatchObject(notFound);
    await expect(other.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toMatchObject(notFound);
    await expect(other.resubscribeTask({ tenant: '', id: task.id }).next()).rejects.toMatchObject(notFound);
    await expect(
      other.sendMessage(userMessage('1 1', { taskId: task.id, contextId: task.contextId })),
    ).rejects.toMatchObject(notFound);
  });

  it('refuses a call without a token with a 401, and the card needs none', async () => {
    const response = await fetch(`${base()}/a2a`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers hostile requests with JSON-RPC errors or a 4xx, never a 500', async () => {
    const url = base();
    const call = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 7, method, params });
    const send = (message: unknown) => call('SendMessage', { message });
    const huge = 'x'.repeat(200_000);
    const cases: { body: unknown; headers?: Record<string, string>; code?: number }[] = [
      { body: '{"jsonrpc": "2.0", "id": 1, "method": ' },
      { body: 'null' },
      { body: { jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: 'x' } }, code: -32602 },
      { body: call('NoSuchMethod', {}), code: -32601 },
      { body: call('GetTask', []), code: -32602 },
      { body: call('GetTask', { id: '' }), code: -32602 },
      { body: call('GetTask', { id: huge }), code: -32001 },
      { body: call('GetTask', { id: 'nul\u0000' }) },
      { body: `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"\\ud800"}}` },
      { body: call('GetTask', { id: randomUUID() }), headers: { 'A2A-Version': '' }, code: -32009 },
      { body: call('ListTasks', { pageToken: 'not-a-token' }), code: -32602 },
      { body: call('ListTasks', { pageToken: Buffer.from('["yesterday", "x"]').toString('base64url') }), code: -32602 },
      { body: call('ListTasks', { pageSize: -1 }), code: -32602 },
      { body: call('ListTasks', { contextId: 'bad\tid' }), code: -32602 },
      { body: call('ListTasks', { statusTimestampAfter: 'never' }) },
      { body: call('SendMessage', {}), code: -32602 },
      { body: send({ messageId: 'm', role: 'ROLE_USER', parts: 'not a list' }), code: -32602 },
      { body: send({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: '1 1' }] }), code: -32602 },
      { body: send({ messageId: 'm', role: 'ROLE_USER', parts: [] }), code: -32602 },
      {
        body: send({ messageId: 'm', role: 'ROLE_USER', parts: [{ url: 'https://example.com/a.pdf' }] }),
        code: -32005,
      },
      {
        body: send({ messageId: 'm', role: 'ROLE_USER', contextId: 'bad\tid', parts: [{ text: 'hi' }] }),
        code: -32602,
      },
      {
        body: send({ messageId: 'm', role: 'ROLE_USER', taskId: randomUUID(), parts: [{ text: 'hi' }] }),
        code: -32001,
      },
      { body: call('CreateTaskPushNotificationConfig', { taskId: 'x', url: 'https://example.com' }), code: -32003 },
      { body: call('GetExtendedAgentCard', {}), code: -32007 },
      { body: send({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: huge.repeat(20) }] }) },
    ];
    for (const { body, headers, code } of cases) {
      const response = await rpc(url, body, headers);
      const text = await response.text();
      const answered = response.status === 200 ? (JSON.parse(text) as { error?: { code?: number } }).error : undefined;
      const outcome = { body, status: response.status, code: answered?.code };
      if (code !== undefined) expect(outcome).toEqual({ body, status: 200, code });
      else if (response.status === 200) expect(outcome).toEqual({ body, status: 200, code: expect.any(Number) });
      else
        expect({ body, clientError: response.status >= 400 && response.status < 500 }).toEqual({
          body,
          clientError: true,
        });
      expect(text).not.toMatch(/at .*\.js:\d+|SELECT|agent_runs/);
    }
  });
});

describe('a task waiting for input', () => {
  it('is input-required, naming the pending approval; a message on it with the answer resumes it', async () => {
    const client = await connect(`${pool.url}/agents/${approvalAgent}`, ada);
    const waiting = asTask(await client.sendMessage(userMessage('send the report')));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const interruptId = `confirm-${waiting.id}`;
    expect(textOf(waiting.status?.message?.parts)).toContain(`"${interruptId}" (confirm): Send the report?`);

    const answer = { resume: [{ interruptId, status: 'resolved', payload: { approved: true } }] };
    const resumed = asTask(
      await client.sendMessage(
        userMessage(undefined, { taskId: waiting.id, contextId: waiting.contextId }, [{ data: answer }]),
      ),
    );
    expect(resumed.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resumed.contextId).toBe(waiting.contextId);
    expect(replyOf(resumed)).toBe(`${interruptId} resolved: {"approved":true}`);
    // The task that waited is over: a later message goes on its context, not on it.
    await expect(
      client.sendMessage(userMessage('again', { taskId: resumed.id, contextId: resumed.contextId })),
    ).rejects.toMatchObject({ name: 'UnsupportedOperationError' });
  });
});

describe('an engine without a database', () => {
  it('serves the card, asking for no token with auth off, and answers the endpoint 503: tasks are runs', async () => {
    const engine = await startFileEngine(makeCustomEngineConfig('slow-agent.js:createSlowAgent'), {
      env: { ENGINE_AGENTS_DIR: FIXTURES },
    });
    try {
      const card = (await (await fetch(`${engine.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
      expect(card).toMatchObject({ securitySchemes: {}, securityRequirements: [] });
      const response = await rpc(engine.url, { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} });
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    } finally {
      await engine.shutdown();
    }
  });
});
