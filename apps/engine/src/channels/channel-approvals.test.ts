// Human in the loop on a channel, with the made-up echo provider (testing/echo-channel.ts) in a real
// database-mode engine: the model calls server-everything's get-sum, which the tool policy wants
// approved. Where the provider has buttons the run pauses and an approval message is posted; a press
// by whoever started the run resumes it, anyone else's is skipped; without buttons the policy's
// `unattended` decides and nothing pauses.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { queueRows, waitForQueueStatus } from '../testing/channel-agent.js';
import { type EchoAgent, type FakeEchoApi, startEchoAgent, startFakeEchoApi } from '../testing/echo-channel.js';
import { ALLOW_EVERYTHING_STDIO, EVERYTHING_SUM, everythingStdioServer } from '../testing/everything-server.js';

let database: TestDatabase;
let model: FakeOpenAiServer;
let api: FakeEchoApi;
let engines: RunningEngine[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  model = await startFakeOpenAiServer();
  api = await startFakeEchoApi();
});

afterEach(async () => {
  for (const engine of engines) await engine.shutdown();
  engines = [];
});

afterAll(async () => {
  await api?.close();
  await model?.close();
  await database?.drop();
});

async function setUp(buttons = true): Promise<EchoAgent> {
  const setup = await startEchoAgent(database, {
    apiBaseUrl: api.baseUrl,
    adapter: { buttons },
    env: ALLOW_EVERYTHING_STDIO,
    config: {
      model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
      mcpServers: [everythingStdioServer()],
      tools: { approval: ['*__get-sum'] },
    },
  });
  engines.push(setup.engine);
  return setup;
}

const ask = (setup: EchoAgent, conversation: string, sender: string) =>
  setup.deliver({ id: `m-${randomUUID()}`, conversation, sender, text: 'add 2 and 40' });

const press = (setup: EchoAgent, conversation: string, sender: string, interruptId: string, approved = true) =>
  setup.deliver({ id: `p-${randomUUID()}`, conversation, sender, approval: { interruptId, approved } });

const callsIn = (conversation: string) => api.calls.filter((call) => call.body.address?.conversation === conversation);
const sumCall = () => ({
  toolCalls: [{ id: `call_${randomUUID()}`, name: EVERYTHING_SUM, arguments: ['{"a":2,"b":40}'] }],
});
const runsOf = (agentId: string) =>
  database.prisma.agentRun.findMany({ where: { agentId }, orderBy: { createdAt: 'asc' } });

/** Asks as `sender` and waits for the approval message; returns the interrupt it asks about. */
async function pauseFor(setup: EchoAgent, conversation: string, sender: string): Promise<string> {
  model.script(sumCall());
  await ask(setup, conversation, sender);
  await waitUntil(() => callsIn(conversation).some((call) => call.method === 'approval'), {
    what: 'the approval message',
  });
  const approval = callsIn(conversation).find((call) => call.method === 'approval');
  return String(approval?.body.request?.interruptId);
}

describe('a tool call needing approval, on a provider with buttons', () => {
  it('pauses the run and posts an approval message naming the tool and who may answer', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    const interruptId = await pauseFor(setup, conversation, 'alice');
    const approval = callsIn(conversation).find((call) => call.method === 'approval');
    expect(approval?.body.request).toMatchObject({
      interruptId,
      toolName: EVERYTHING_SUM,
      requester: 'alice',
      prompt: expect.stringContaining(EVERYTHING_SUM),
    });
    const [row] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(row?.replyState).toMatchObject({ asked: 1 });
    expect(await runsOf(setup.agent.agentId)).toMatchObject([{ id: row?.runId, status: 'input_required' }]);
  });

  it("is resumed by its starter's press: the tool is called and the answer posted", async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    const interruptId = await pauseFor(setup, conversation, 'alice');
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    model.script({ text: ['The sum is 42.'] });
    await press(setup, conversation, 'alice', interruptId);
    const done = await waitForQueueStatus(database, setup.agent.agentId, 'done', 2);
    expect(callsIn(conversation).at(-1)?.body.text).toBe('The sum is 42.');
    // The model got the approved call's result.
    const toolResults = model.requests.at(-1)?.body.messages.filter((message) => message.role === 'tool');
    expect(JSON.stringify(toolResults)).toContain('42');
    const runs = await runsOf(setup.agent.agentId);
    expect(runs.map((run) => [run.id, run.status])).toEqual([
      [done[0]?.runId, 'input_required'],
      [done[1]?.runId, 'succeeded'],
    ]);
  });

  it("is not resumed by anyone else's press: that press is skipped, and the starter can still answer", async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    const interruptId = await pauseFor(setup, conversation, 'alice');
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const requestsBefore = model.requests.length;
    await press(setup, conversation, 'mallory', interruptId);
    const [skipped] = await waitForQueueStatus(database, setup.agent.agentId, 'skipped');
    expect(skipped?.lastError).toMatch(/not from whoever started the run/);
    expect(model.requests.length).toBe(requestsBefore);
    // A rejection by the starter resumes it: the model learns the call was refused.
    model.script({ text: ['Fine, I will not.'] });
    await press(setup, conversation, 'alice', interruptId, false);
    await waitForQueueStatus(database, setup.agent.agentId, 'done', 2);
    expect(callsIn(conversation).at(-1)?.body.text).toBe('Fine, I will not.');
  });

  it('is not resumed twice: a second press of the same button is skipped', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    const interruptId = await pauseFor(setup, conversation, 'alice');
    model.script({ text: ['Done.'] });
    await press(setup, conversation, 'alice', interruptId);
    await waitForQueueStatus(database, setup.agent.agentId, 'done', 2);
    await press(setup, conversation, 'alice', interruptId);
    const [skipped] = await waitForQueueStatus(database, setup.agent.agentId, 'skipped');
    expect(skipped?.lastError).toMatch(/cannot be answered/);
  });

  it("is not answered from another conversation: a press naming another conversation's interrupt is skipped", async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    const interruptId = await pauseFor(setup, conversation, 'alice');
    await press(setup, `c-${randomUUID()}`, 'alice', interruptId);
    const [skipped] = await waitForQueueStatus(database, setup.agent.agentId, 'skipped');
    expect(skipped?.lastError).toMatch(/names no approval/);
  });
});

describe('a tool call needing approval, on a provider without buttons', () => {
  it("follows the policy's unattended (reject by default): nothing pauses, nothing asks", async () => {
    const setup = await setUp(false);
    const conversation = `c-${randomUUID()}`;
    model.script(sumCall(), { text: ['I was not allowed to add.'] });
    await ask(setup, conversation, 'alice');
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(callsIn(conversation).some((call) => call.method === 'approval')).toBe(false);
    expect(callsIn(conversation).at(-1)?.body.text).toBe('I was not allowed to add.');
    expect(await runsOf(setup.agent.agentId)).toMatchObject([{ status: 'succeeded' }]);
    expect((await queueRows(database, setup.agent.agentId))[0]?.replyState).not.toHaveProperty('asked');
  });
});
