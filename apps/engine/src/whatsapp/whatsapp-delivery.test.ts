// From webhook to reply against a real PostgreSQL, a fake Graph API and the mock or a fake OpenAI
// model: one reply per message, de-duplication, restarts, Graph failures, threads, replicas and guardrails.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { captureLogs } from '../testing/captured-logs.js';
import type { TestConfigOptions } from '../testing/engine-configs.js';
import { type FakeGraphApi, startFakeGraphApi } from '../testing/fake-graph-api.js';
import { hold } from '../testing/gate.js';
import { engineGuardrail } from '../testing/guardrail-rules.js';
import { soleHolder, type TestEngineOptions } from '../testing/test-engine.js';
import {
  makeWebhookPayload,
  makeWhatsAppConfig,
  type PublishedAgent,
  postWebhook,
  publishWhatsAppAgent,
  startWhatsAppEngine,
  type TextMessage,
  type WhatsAppTestConfig,
} from '../testing/whatsapp-agent.js';

const UNSUPPORTED_REPLY = 'Text only here, please.';

let database: TestDatabase;
let graph: FakeGraphApi;
let model: FakeOpenAiServer;
let engines: RunningEngine[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  graph = await startFakeGraphApi();
  model = await startFakeOpenAiServer();
});

afterEach(async () => {
  for (const engine of engines) await engine.shutdown();
  engines = [];
});

afterAll(async () => {
  await graph?.close();
  await model?.close();
  await database?.drop();
});

async function startAgentEngine(
  agent: PublishedAgent,
  env: Record<string, string> = {},
  options: TestEngineOptions = {},
): Promise<RunningEngine> {
  const engine = await startWhatsAppEngine(
    database,
    agent,
    graph,
    {
      ENGINE_CONFIG_POLL_MS: '50',
      GRAPH_API_TIMEOUT_MS: '2000',
      WHATSAPP_POLL_MS: '50',
      WHATSAPP_RETRY_BASE_MS: '20',
      WHATSAPP_UNSUPPORTED_MESSAGE_REPLY: UNSUPPORTED_REPLY,
      ...env,
    },
    options,
  );
  engines.push(engine);
  return engine;
}

type Setup = { whatsapp: WhatsAppTestConfig; agent: PublishedAgent; engine: RunningEngine };

async function setUp(
  options: TestConfigOptions = {},
  whatsapp = makeWhatsAppConfig({ apiVersion: 'v19.0' }),
  env: Record<string, string> = {},
  engineOptions: TestEngineOptions = {},
): Promise<Setup> {
  const agent = await publishWhatsAppAgent(database, whatsapp, options);
  return { whatsapp, agent, engine: await startAgentEngine(agent, env, engineOptions) };
}

const fakeModel = (): TestConfigOptions => ({ model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl } });

async function send(setup: Setup, ...messages: TextMessage[]): Promise<Response> {
  const response = await postWebhook(setup.engine.url, makeWebhookPayload(setup.whatsapp.phoneNumberId, messages), {
    appSecret: setup.whatsapp.appSecret,
  });
  expect(response.status).toBe(200);
  return response;
}

const repliesTo = (setup: Pick<Setup, 'whatsapp'>) =>
  graph.delivered.filter((request) => request.path.includes(`/${setup.whatsapp.phoneNumberId}/`));
const callsFor = (setup: Pick<Setup, 'whatsapp'>) =>
  graph.requests.filter((request) => request.path.includes(`/${setup.whatsapp.phoneNumberId}/`));

const rowsOf = (agentId: string) =>
  database.prisma.inboundMessage.findMany({ where: { agentId }, orderBy: { createdAt: 'asc' } });

async function waitForStatus(agentId: string, status: string, count = 1): Promise<void> {
  await waitUntil(async () => (await rowsOf(agentId)).filter((row) => row.status === status).length === count, {
    what: `${count} message(s) ${status}`,
  });
}

describe('answering a text message', () => {
  it('acknowledges a delivery at once, before its reply can be sent', async () => {
    const whatsapp = makeWhatsAppConfig();
    const reply = hold();
    graph.script(whatsapp.phoneNumberId, { status: 200, gate: reply.gate });
    // No Graph timeout while the reply is held: its retry would be delivered behind the test's back.
    const setup = await setUp({}, whatsapp, { GRAPH_API_TIMEOUT_MS: '600000' });
    let acknowledgement: Response | undefined;
    const payload = makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '491700000006' }]);
    const acknowledged = postWebhook(setup.engine.url, payload, { appSecret: whatsapp.appSecret }).then((response) => {
      acknowledgement = response;
    });
    try {
      // Nothing can be answered before the reply is released: a webhook that waited for the answer never acknowledges.
      await waitUntil(() => acknowledgement !== undefined, { what: 'the acknowledgement, with the reply held' });
      expect(acknowledgement?.status).toBe(200);
      expect(await rowsOf(setup.agent.agentId)).toEqual([expect.objectContaining({ sender: '491700000006' })]);
    } finally {
      reply.release();
      await acknowledged;
    }
    await waitForStatus(setup.agent.agentId, 'done');
    expect(repliesTo(setup)).toHaveLength(1);
  });

  it("sends exactly one reply with the agent's answer to the sender, with the configured token and version", async () => {
    const setup = await setUp();
    await send(setup, { from: '491700000001', text: 'hello there' });
    await waitForStatus(setup.agent.agentId, 'done');
    expect(repliesTo(setup)).toHaveLength(1);
    const [reply] = repliesTo(setup);
    expect(reply?.path).toBe(`/v19.0/${setup.whatsapp.phoneNumberId}/messages`);
    expect(reply?.authorization).toBe(`Bearer ${setup.whatsapp.accessToken}`);
    expect(reply?.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '491700000001',
      type: 'text',
      text: { preview_url: false, body: 'You said: hello there' },
    });
  });

  it('answers a message delivered three times once: one run, one reply', async () => {
    const setup = await setUp(fakeModel());
    model.script({ text: ['only once'] });
    const runsBefore = model.requests.length;
    const message = { from: '491700000002', id: `wamid.${randomUUID()}`, text: 'hi' };
    await Promise.all([send(setup, message), send(setup, message), send(setup, message)]);
    await waitForStatus(setup.agent.agentId, 'done');
    expect(await rowsOf(setup.agent.agentId)).toHaveLength(1);
    expect(model.requests.length - runsBefore).toBe(1);
    expect(repliesTo(setup).map((request) => request.body.text?.body)).toEqual(['only once']);
    // The run is a record like any other, with its events stored, but no client's to read.
    const runs = await database.prisma.agentRun.findMany({ where: { agentId: setup.agent.agentId } });
    expect(runs).toMatchObject([{ source: 'whatsapp', status: 'succeeded', issuer: null, subject: null }]);
    expect(runs[0]?.lastSeq).toBeGreaterThan(2);
  });

  it('answers anything but text with the configured polite reply, without running the agent', async () => {
    const setup = await setUp(fakeModel());
    const runsBefore = model.requests.length;
    await send(setup, { from: '491700000003', type: 'image' });
    await waitForStatus(setup.agent.agentId, 'done');
    expect(repliesTo(setup).map((request) => request.body.text?.body)).toEqual([UNSUPPORTED_REPLY]);
    expect(model.requests.length).toBe(runsBefore);
  });

  it('splits a reply longer than 4096 characters into parts sent in order', async () => {
    const setup = await setUp();
    const text = Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ');
    await send(setup, { from: '491700000004', text });
    await waitForStatus(setup.agent.agentId, 'done');
    const parts = repliesTo(setup).map((request) => request.body.text?.body ?? '');
    expect(parts.length).toBe(2);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(4096);
    expect(parts.join(' ')).toBe(`You said: ${text}`);
  });

  it('uses an access token the manager publishes for the next message', async () => {
    const setup = await setUp();
    const rotated = { ...setup.whatsapp, accessToken: 'rotated-access-token' };
    await setup.agent.publish(setup.agent.configWith(rotated));
    await waitUntil(
      async () => {
        const applied = soleHolder(setup.engine).current()?.config.integrations[0];
        return applied?.provider === 'WHATSAPP' && applied.config.accessToken === rotated.accessToken;
      },
      {
        what: 'the new token to be applied',
      },
    );
    await send(setup, { from: '491700000005', text: 'hi' });
    await waitForStatus(setup.agent.agentId, 'done');
    expect(repliesTo(setup).map((request) => request.authorization)).toEqual(['Bearer rotated-access-token']);
  });
});

describe('durability', () => {
  it('answers a message acknowledged by an engine that stopped before replying, once, after a restart', async () => {
    const whatsapp = makeWhatsAppConfig();
    const agent = await publishWhatsAppAgent(database, whatsapp, fakeModel());
    const first = await startAgentEngine(agent);
    const turn = hold();
    model.script({ gate: turn.gate, turn: { text: ['too late'] } }, { text: ['answered after the restart'] });
    const runsBefore = model.requests.length;
    await send({ whatsapp, agent, engine: first }, { from: '491700000010', text: 'are you there?' });
    await waitUntil(() => model.requests.length === runsBefore + 1, { what: 'the first engine to ask the model' });
    await first.shutdown();
    engines = engines.filter((engine) => engine !== first);
    turn.release();
    expect(repliesTo({ whatsapp })).toHaveLength(0);
    expect((await rowsOf(agent.agentId))[0]).toMatchObject({ status: 'pending', attempts: 0 });

    await startAgentEngine(agent);
    await waitForStatus(agent.agentId, 'done');
    expect(repliesTo({ whatsapp }).map((request) => request.body.text?.body)).toEqual(['answered after the restart']);
  });

  it('takes over a message whose engine died while holding it, once its lease ran out', async () => {
    const whatsapp = makeWhatsAppConfig();
    const agent = await publishWhatsAppAgent(database, whatsapp);
    const integrationId = (agent.configWith(whatsapp).integrations[0] as { id: string }).id;
    await database.prisma.inboundMessage.create({
      data: {
        agentId: agent.agentId,
        integrationId,
        providerMessageId: `wamid.${randomUUID()}`,
        sender: '491700000011',
        payload: { from: '491700000011', id: 'x', type: 'text', text: { body: 'still there?' } },
        status: 'processing',
        attempts: 1,
        lockedUntil: new Date(Date.now() - 1000),
      },
    });
    await startAgentEngine(agent);
    await waitForStatus(agent.agentId, 'done');
    expect(repliesTo({ whatsapp }).map((request) => request.body.text?.body)).toEqual(['You said: still there?']);
  });

  it('stops a multi-part reply at once when its lease is taken over mid-reply, leaving the rest to the new holder', async () => {
    const whatsapp = makeWhatsAppConfig();
    const firstPart = hold();
    graph.script(whatsapp.phoneNumberId, { status: 200, gate: firstPart.gate });
    const logs = captureLogs();
    const setup = await setUp({}, whatsapp, { GRAPH_API_TIMEOUT_MS: '600000' }, { logDestination: logs.destination });
    try {
      await send(setup, { from: '491700000012', text: Array.from({ length: 1000 }, (_, i) => `word${i}`).join(' ') });
      await waitUntil(() => callsFor(setup).length === 1, { what: 'the first of two parts to reach Graph' });
      // What a replica does once the lease ran out: it claims the message under a lease of its own.
      await database.prisma
        .$executeRaw`UPDATE inbound_messages SET locked_until = locked_until + interval '1 hour' WHERE agent_id = ${setup.agent.agentId}::uuid`;
    } finally {
      firstPart.release();
    }
    await waitUntil(() => logs.lines().some((line) => line.msg.startsWith('WhatsApp message lease lost')), {
      what: 'the worker to find its lease lost',
    });
    expect(callsFor(setup).length).toBe(1);
    expect((await rowsOf(setup.agent.agentId))[0]).toMatchObject({ status: 'processing', replyPartsSent: 0 });
  });

  it('never answers a message twice with two replicas claiming from the same queue', async () => {
    const setup = await setUp();
    await startAgentEngine(setup.agent);
    const messages = Array.from({ length: 12 }, (_, i) => ({ from: `49170000100${i}`, text: `message ${i}` }));
    await send(setup, ...messages);
    await waitForStatus(setup.agent.agentId, 'done', messages.length);
    const bodies = repliesTo(setup).map((request) => `${request.body.to}:${request.body.text?.body}`);
    expect(bodies.sort()).toEqual(messages.map((message) => `${message.from}:You said: ${message.text}`).sort());
  });
});

describe('Graph API failures', () => {
  it('retries after 500 twice and delivers one reply on the third attempt, without running the agent again', async () => {
    const whatsapp = makeWhatsAppConfig();
    graph.script(whatsapp.phoneNumberId, { status: 500 }, { status: 500 });
    const setup = await setUp(fakeModel(), whatsapp);
    model.script({ text: ['worth the wait'] });
    const runsBefore = model.requests.length;
    await send(setup, { from: '491700000020', text: 'hi' });
    await waitForStatus(setup.agent.agentId, 'done');
    expect(callsFor(setup)).toHaveLength(3);
    expect(repliesTo(setup).map((request) => request.body.text?.body)).toEqual(['worth the wait']);
    expect(model.requests.length - runsBefore).toBe(1);
    expect((await rowsOf(setup.agent.agentId))[0]?.attempts).toBe(3);
  });

  it('marks the message failed on a 401 from Graph, with its error code, and does not retry', async () => {
    const whatsapp = makeWhatsAppConfig();
    graph.script(whatsapp.phoneNumberId, { status: 401, code: 190, message: 'Invalid OAuth access token.' });
    const setup = await setUp({}, whatsapp);
    await send(setup, { from: '491700000021', text: 'hi' });
    await waitForStatus(setup.agent.agentId, 'failed');
    const [row] = await rowsOf(setup.agent.agentId);
    expect(row?.lastError).toMatch(/401.*code 190/);
    expect(row?.lastError).not.toContain(whatsapp.accessToken);
    // One message at a time, oldest due first: a retry of the failed one would be sent before a later message.
    await send(setup, { from: '491700000029', text: 'later' });
    await waitForStatus(setup.agent.agentId, 'done');
    expect(callsFor(setup).map((request) => request.body.to)).toEqual(['491700000021', '491700000029']);
  });

  it('waits as long as a 429 Retry-After asks before retrying, then delivers one reply', async () => {
    const whatsapp = makeWhatsAppConfig();
    graph.script(whatsapp.phoneNumberId, { status: 429, code: 130429, headers: { 'Retry-After': '1800' } });
    const setup = await setUp({}, whatsapp);
    await send(setup, { from: '491700000023', text: 'hi' });
    await waitUntil(async () => (await rowsOf(setup.agent.agentId))[0]?.lastError?.includes('429') === true, {
      what: 'the 429 to be recorded',
    });
    const [row] = await rowsOf(setup.agent.agentId);
    expect(row?.status).toBe('pending');
    // The backoff alone would be 20 ms (WHATSAPP_RETRY_BASE_MS).
    expect((row?.nextAttemptAt.getTime() ?? 0) - (row?.updatedAt.getTime() ?? 0)).toBe(1_800_000);
    expect(callsFor(setup)).toHaveLength(1);
    // Half an hour later, as far as the queue knows.
    await database.prisma.inboundMessage.updateMany({
      where: { agentId: setup.agent.agentId },
      data: { nextAttemptAt: new Date() },
    });
    await waitForStatus(setup.agent.agentId, 'done');
    expect(callsFor(setup)).toHaveLength(2);
    expect(repliesTo(setup)).toHaveLength(1);
  });

  it('retries a Graph call that times out, and delivers the reply once', async () => {
    const whatsapp = makeWhatsAppConfig();
    const unanswered = hold();
    graph.script(whatsapp.phoneNumberId, { status: 200, gate: unanswered.gate });
    const logs = captureLogs();
    try {
      const setup = await setUp({}, whatsapp, {}, { logDestination: logs.destination });
      await send(setup, { from: '491700000024', text: 'anyone?' });
      await waitForStatus(setup.agent.agentId, 'done');
      const [row] = await rowsOf(setup.agent.agentId);
      // The first call timed out (GRAPH_API_TIMEOUT_MS); each attempt made one call.
      expect(row?.attempts).toBeGreaterThanOrEqual(2);
      expect(callsFor(setup)).toHaveLength(row?.attempts ?? 0);
      const retries = logs.lines().filter((line) => line.msg === 'WhatsApp message will be retried');
      expect(retries[0]?.err_message).toBe('Graph API no answer within 2000 ms');
      expect(repliesTo(setup).map((request) => request.body.text?.body)).toEqual(['You said: anyone?']);
    } finally {
      unanswered.release();
    }
  });

  it('gives up after WHATSAPP_MAX_ATTEMPTS when Graph keeps failing', async () => {
    const whatsapp = makeWhatsAppConfig();
    graph.script(whatsapp.phoneNumberId, ...Array.from({ length: 10 }, () => ({ status: 503 })));
    const setup = await setUp({}, whatsapp, { WHATSAPP_MAX_ATTEMPTS: '3' });
    await send(setup, { from: '491700000022', text: 'hi' });
    await waitForStatus(setup.agent.agentId, 'failed');
    expect(callsFor(setup)).toHaveLength(3);
  });
});

describe('conversation threads', () => {
  it('gives the second message from a sender the first turn as history', async () => {
    const setup = await setUp(fakeModel());
    model.script({ text: ['Nice to meet you, Ada.'] }, { text: ['You are Ada.'] });
    const before = model.requests.length;
    await send(setup, { from: '491700000030', text: 'My name is Ada.' });
    await waitForStatus(setup.agent.agentId, 'done');
    await send(setup, { from: '491700000030', text: 'What is my name?' });
    await waitForStatus(setup.agent.agentId, 'done', 2);
    const second = model.requests[before + 1]?.body.messages.map(({ role, content }) => ({ role, content }));
    expect(second).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('keeps senders apart: another sender starts with no history', async () => {
    const setup = await setUp(fakeModel());
    model.script({ text: ['one'] }, { text: ['two'] });
    const before = model.requests.length;
    await send(setup, { from: '491700000031', text: 'first sender' });
    await waitForStatus(setup.agent.agentId, 'done');
    await send(setup, { from: '491700000032', text: 'second sender' });
    await waitForStatus(setup.agent.agentId, 'done', 2);
    expect(model.requests[before + 1]?.body.messages).toEqual([{ role: 'user', content: 'second sender' }]);
  });
});

describe('a reply the database cannot store as the model wrote it', () => {
  it('is sent and kept in the thread with U+FFFD for the NUL and the lone surrogate the model streamed', async () => {
    const setup = await setUp(fakeModel());
    model.script({ text: ['Hi\u0000 there', '\ud800!'] }, { text: ['ok'] });
    const before = model.requests.length;
    await send(setup, { from: '491700000033', text: 'hello' });
    await waitForStatus(setup.agent.agentId, 'done');
    expect(repliesTo(setup).map((request) => request.body.text?.body)).toEqual(['Hi\uFFFD there\uFFFD!']);
    await send(setup, { from: '491700000033', text: 'again' });
    await waitForStatus(setup.agent.agentId, 'done', 2);
    expect(model.requests[before + 1]?.body.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Hi\uFFFD there\uFFFD!' },
      { role: 'user', content: 'again' },
    ]);
  });
});

describe('budgets', () => {
  it("answers with the budget's reply, else WHATSAPP_BUDGET_EXCEEDED_REPLY, instead of running the agent while a budget is spent", async () => {
    const setup = await setUp(fakeModel(), undefined, { WHATSAPP_BUDGET_EXCEEDED_REPLY: 'The operator says later.' });
    const { agentId, workspaceId } = setup.agent;
    await database.prisma.budgetSpend.create({
      data: { scope: 'workspace', scopeId: workspaceId, day: new Date(), tokens: 5 },
    });
    const budget = { limit: 5, unit: 'tokens' as const, period: 'month' as const };
    const publishBudget = async (whatsappReply?: string) => {
      const workspace = { ...budget, ...(whatsappReply === undefined ? {} : { whatsapp_reply: whatsappReply }) };
      await setup.agent.publish({
        ...setup.agent.configWith(setup.whatsapp),
        budgets: { agent: null, workspace, price: null },
      });
      await waitUntil(
        async () => soleHolder(setup.engine).current()?.config.budgets.workspace?.whatsapp_reply === whatsappReply,
        { what: 'the budget to be applied' },
      );
    };
    const before = model.requests.length;
    await publishBudget('We are out of budget today.');
    await send(setup, { from: '491700000040', text: 'hello?' });
    await waitForStatus(agentId, 'done');
    await publishBudget(undefined);
    await send(setup, { from: '491700000040', text: 'still there?' });
    await waitForStatus(agentId, 'done', 2);
    expect(repliesTo(setup).map((request) => request.body.text?.body)).toEqual([
      'We are out of budget today.',
      'The operator says later.',
    ]);
    expect(model.requests.length).toBe(before);
    const runs = await database.prisma.agentRun.findMany({ where: { agentId } });
    expect(runs).toMatchObject([
      { source: 'whatsapp', status: 'failed', usage: null },
      { source: 'whatsapp', status: 'failed', usage: null },
    ]);
    // The agent never saw the turns, so its thread keeps none of them.
    expect(await database.prisma.conversationMessage.count({ where: { agentId } })).toBe(0);
  });
});

describe('guardrails', () => {
  const REFUSAL = 'That is not something I can discuss.';
  const guardrail = engineGuardrail(
    [
      { name: 'topic', kind: 'pattern', position: 'input', action: 'block', phrases: ['secret plans'] },
      { name: 'emails-in', kind: 'pii', position: 'input', action: 'redact', entities: ['email'] },
      { name: 'no-spoilers', kind: 'pattern', position: 'output', action: 'block', phrases: ['the butler did it'] },
      { name: 'emails-out', kind: 'pii', position: 'output', action: 'redact', entities: ['email'] },
    ],
    'chat rules',
  );

  async function setUpGuarded(): Promise<Setup> {
    const setup = await setUp(fakeModel(), undefined, { WHATSAPP_GUARDRAIL_BLOCKED_REPLY: REFUSAL });
    await setup.agent.publish({ ...setup.agent.configWith(setup.whatsapp), guardrails: [guardrail] });
    await waitUntil(async () => soleHolder(setup.engine).current()?.config.guardrails.length === 1, {
      what: 'the guardrails to be applied',
    });
    return setup;
  }

  it('answers a blocked message or a blocked answer once with WHATSAPP_GUARDRAIL_BLOCKED_REPLY, never retried, the thread keeping nothing of it', async () => {
    const setup = await setUpGuarded();
    const { agentId } = setup.agent;
    const before = model.requests.length;
    await send(setup, { from: '491700000050', text: 'Tell me the SECRET PLANS.' });
    await waitForStatus(agentId, 'done');
    // The model was never asked.
    expect(model.requests).toHaveLength(before);
    model.script({ text: ['Spoiler: the butler ', 'did it.'] });
    await send(setup, { from: '491700000050', text: 'Who did it?' });
    await waitForStatus(agentId, 'done', 2);
    expect(repliesTo(setup).map((request) => request.body.text?.body)).toEqual([REFUSAL, REFUSAL]);
    expect((await rowsOf(agentId)).map((row) => [row.status, row.attempts, row.replyText])).toEqual([
      ['done', 1, REFUSAL],
      ['done', 1, REFUSAL],
    ]);
    const runs = await database.prisma.agentRun.findMany({ where: { agentId }, orderBy: { createdAt: 'asc' } });
    expect(
      runs.map((run) => [run.status, (run.guardrailActions as { rule: string }[]).map((line) => line.rule)]),
    ).toEqual([
      ['failed', ['topic']],
      ['failed', ['no-spoilers']],
    ]);
    expect(await database.prisma.conversationMessage.count({ where: { agentId } })).toBe(0);
  });

  it('sends the answer redacted, and keeps the message in the thread as the agent was given it, redacted', async () => {
    const setup = await setUpGuarded();
    model.script({ text: ['Write to help', '@example.com instead.'] }, { text: ['ok'] });
    const before = model.requests.length;
    await send(setup, { from: '491700000051', text: 'Is ada@example.com right?' });
    await waitForStatus(setup.agent.agentId, 'done');
    const [reply] = repliesTo(setup).map((request) => request.body.text?.body ?? '');
    expect(reply).not.toContain('help@example.com');
    expect(reply).toMatch(/^Write to .*REDACTED.* instead\.$/);
    await send(setup, { from: '491700000051', text: 'Thanks.' });
    await waitForStatus(setup.agent.agentId, 'done', 2);
    const history = model.requests[before + 1]?.body.messages ?? [];
    expect(JSON.stringify(history)).not.toContain('@example.com');
    expect(history.map(({ role, content }) => [role, content])).toEqual([
      ['user', expect.stringMatching(/^Is .*REDACTED.* right\?$/)],
      ['assistant', reply],
      ['user', 'Thanks.'],
    ]);
  });
});
