// The channel worker with the made-up echo provider (testing/echo-channel.ts), which edits messages:
// a real database-mode engine, a fake model that streams, and a fake provider API that records every
// call. Replies stream as edits of one posted message, end formatted and split by the provider's
// length, are sent once however often the delivery comes, and honour a 429's Retry-After; each
// conversation is a thread of its own, and one worker answers every provider of the agent.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import {
  channelWebhookUrl,
  publishChannelAgent,
  queueRows,
  startChannelEngine,
  waitForQueueStatus,
} from '../testing/channel-agent.js';
import {
  createEchoAdapter,
  ECHO_SLUG,
  type EchoAgent,
  type EchoAgentOptions,
  type FakeEchoApi,
  postEchoDelivery,
  startEchoAgent,
  startFakeEchoApi,
} from '../testing/echo-channel.js';
import { startFakeGraphApi } from '../testing/fake-graph-api.js';
import { makeWebhookPayload, makeWhatsAppConfig } from '../testing/whatsapp-agent.js';
import { signBody } from '../whatsapp/verify-webhook.js';
import { threadKeyOf } from './process-claim.js';
import { splitText } from './split-text.js';

const UNSUPPORTED = 'Text only, please.';

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

async function setUp(adapter: EchoAgentOptions['adapter'] = {}): Promise<EchoAgent> {
  const config = { model: { provider: 'openai' as const, name: 'fake', baseUrl: model.baseUrl } };
  const env = { CHANNEL_UNSUPPORTED_MESSAGE_REPLY: UNSUPPORTED };
  const setup = await startEchoAgent(database, { apiBaseUrl: api.baseUrl, adapter, env, config });
  engines.push(setup.engine);
  return setup;
}

const send = (setup: EchoAgent, delivery: { id?: string; conversation: string; text?: string; sender?: string }) =>
  setup.deliver({ id: delivery.id ?? `m-${randomUUID()}`, sender: delivery.sender ?? 'u-1', ...delivery });

const callsIn = (conversation: string) => api.calls.filter((call) => call.body.address?.conversation === conversation);
const deliveredIn = (conversation: string) =>
  api.delivered.filter((call) => call.body.address?.conversation === conversation);

const replyStateOf = (row: { replyState: unknown } | undefined) =>
  (row?.replyState as { posted: string[] } | null)?.posted;

describe('a reply', () => {
  it('is shown while the run goes on: the first text posts a message, whose id is saved before anything else is sent', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    // Two chunks, then the model holds the stream open: the run is not over while the reply shows.
    model.script({ stall: ['Hello', ' **there**'] });
    await send(setup, { conversation, text: 'hi' });
    await waitUntil(() => deliveredIn(conversation).some((call) => call.body.text === 'Hello <b>there</b>'), {
      what: 'the streamed text to be shown',
    });
    const saved = async () => replyStateOf((await queueRows(database, setup.agent.agentId))[0]) !== undefined;
    await waitUntil(saved, { what: "the posted message's id to be saved" });
    const [row] = await queueRows(database, setup.agent.agentId);
    expect(row?.status).toBe('processing');
    const [first, ...later] = callsIn(conversation);
    expect(first?.method).toBe('post');
    // Its id was saved under the lease before anything more was sent: a takeover edits, never posts again.
    const posted = replyStateOf(row);
    expect(posted).toHaveLength(1);
    expect(later.every((call) => call.method === 'edit' && call.body.id === posted?.[0])).toBe(true);
  });

  it('is edited, never posted again, by the engine that takes the message over after this one stopped', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    model.script({ stall: ['Thinking'] });
    await send(setup, { conversation, text: 'hi' });
    const saved = async () => replyStateOf((await queueRows(database, setup.agent.agentId))[0]) !== undefined;
    await waitUntil(saved, { what: "the posted message's id to be saved" });
    const posted = replyStateOf((await queueRows(database, setup.agent.agentId))[0])?.[0];
    // Stopping gives the message back to the queue, with what its reply left on the provider.
    engines = engines.filter((engine) => engine !== setup.engine);
    await setup.engine.shutdown();
    model.script({ text: ['Done thinking'] });
    engines.push(
      await startChannelEngine(
        database,
        setup.agent,
        { CHANNEL_POLL_MS: '50' },
        {
          channelAdapters: [createEchoAdapter({ baseUrl: api.baseUrl })],
        },
      ),
    );
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const calls = callsIn(conversation);
    expect(calls.filter((call) => call.method === 'post')).toHaveLength(1);
    expect(calls.at(-1)).toMatchObject({ method: 'edit', body: { id: posted, text: 'Done thinking' } });
  });

  it('ends as the whole formatted reply in the message it streamed into, stored with the run that made it', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    model.script({ text: ['Hello', ' **there**', ', friend'] });
    await send(setup, { conversation, text: 'hi' });
    const [row] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const calls = callsIn(conversation);
    const posted = replyStateOf(row);
    expect(calls.filter((call) => call.method === 'post')).toHaveLength(1);
    expect(calls.slice(1).every((call) => call.method === 'edit' && call.body.id === posted?.[0])).toBe(true);
    expect(calls.at(-1)?.body.text).toBe('Hello <b>there</b>, friend');
    expect(row).toMatchObject({ replyText: 'Hello **there**, friend', replyPartsSent: 1, attempts: 1 });
    const runs = await database.prisma.agentRun.findMany({ where: { agentId: setup.agent.agentId } });
    expect(runs).toMatchObject([{ id: row?.runId, source: 'telegram', status: 'succeeded' }]);
  });

  it("is split by the provider's length: the streamed message becomes the first part, the rest are posted", async () => {
    const setup = await setUp({ maxLength: 40 });
    const conversation = `c-${randomUUID()}`;
    const words = Array.from({ length: 20 }, (_, i) => `word${i}`);
    model.script({ text: words.map((word) => `${word} `) });
    await send(setup, { conversation, text: 'talk' });
    const [row] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const parts = splitText(words.join(' '), 40);
    expect(parts.length).toBeGreaterThan(2);
    const calls = deliveredIn(conversation);
    const finalEdit = calls.findLastIndex((call) => call.method === 'edit');
    expect(calls[finalEdit]?.body.text).toBe(parts[0]);
    expect(calls.slice(finalEdit + 1).map((call) => [call.method, call.body.text])).toEqual(
      parts.slice(1).map((part) => ['post', part]),
    );
    expect(row?.replyPartsSent).toBe(parts.length);
  });

  it('is not edited again when the message it streamed into shows the final text already', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    const final = 'Hello <b>there</b>';
    // The run ends only once the stream has shown the whole reply.
    const shown = waitUntil(() => deliveredIn(conversation).some((call) => call.body.text === final), {
      what: 'the whole reply to be streamed',
    });
    model.script({ text: ['Hello', ' **there**', shown] });
    await send(setup, { conversation, text: 'hi' });
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const calls = callsIn(conversation);
    expect(calls.filter((call) => call.body.text === final)).toHaveLength(1);
    expect(calls.at(-1)?.body.text).toBe(final);
  });

  it('stops streaming at a 429 and is not sent before its Retry-After; then it is sent as stored, the agent not run again', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    api.script({ status: 429, headers: { 'Retry-After': '3600' } });
    // The run ends only once the stream's first post met the 429.
    const refused = waitUntil(() => callsIn(conversation).length > 0, { what: 'the streamed post to be refused' });
    model.script({ text: ['Hello', ' there', refused] });
    const requestsBefore = model.requests.length;
    await send(setup, { conversation, text: 'hi' });
    await waitUntil(async () => (await queueRows(database, setup.agent.agentId))[0]?.lastError != null, {
      what: 'the 429 to be recorded',
    });
    const [row] = await queueRows(database, setup.agent.agentId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, replyText: 'Hello there', replyPartsSent: 0 });
    expect(row?.lastError).toMatch(/HTTP 429/);
    expect((row?.nextAttemptAt.getTime() ?? 0) - (row?.updatedAt.getTime() ?? 0)).toBe(3_600_000);
    // Neither the stream nor the final delivery called the provider after its 429.
    expect(callsIn(conversation)).toHaveLength(1);

    // The hour has passed.
    await database.prisma.inboundMessage.update({ where: { id: row?.id ?? '' }, data: { nextAttemptAt: new Date(0) } });
    const [answered] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(answered).toMatchObject({ attempts: 2, replyPartsSent: 1 });
    expect(
      callsIn(conversation)
        .slice(1)
        .map((call) => [call.method, call.body.text]),
    ).toEqual([['post', 'Hello there']]);
    expect(model.requests.length - requestsBefore).toBe(1);
  });

  it('is sent once however often the provider delivers the message', async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    model.script({ text: ['only once'] });
    const requestsBefore = model.requests.length;
    const delivery = { id: `m-${randomUUID()}`, conversation, text: 'hi' };
    await Promise.all([send(setup, delivery), send(setup, delivery), send(setup, delivery)]);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(await queueRows(database, setup.agent.agentId)).toHaveLength(1);
    expect(model.requests.length - requestsBefore).toBe(1);
    expect(callsIn(conversation).filter((call) => call.method === 'post')).toHaveLength(1);
  });

  it("to a message the agent cannot read is the operator's fixed reply, without a run", async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    const requestsBefore = model.requests.length;
    await send(setup, { conversation });
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(callsIn(conversation).map((call) => [call.method, call.body.text])).toEqual([['post', UNSUPPORTED]]);
    expect(model.requests.length).toBe(requestsBefore);
  });

  it("waits at least as long as a 429's Retry-After before it is sent again", async () => {
    const setup = await setUp();
    const conversation = `c-${randomUUID()}`;
    api.script({ status: 429, headers: { 'Retry-After': '3600' } });
    await send(setup, { conversation });
    await waitUntil(async () => (await queueRows(database, setup.agent.agentId))[0]?.lastError != null, {
      what: 'the 429 to be recorded',
    });
    const [row] = await queueRows(database, setup.agent.agentId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, replyText: UNSUPPORTED, replyPartsSent: 0 });
    expect(row?.lastError).toMatch(/HTTP 429/);
    // The backoff would be 20 ms: the provider's hour is the floor.
    expect((row?.nextAttemptAt.getTime() ?? 0) - (row?.updatedAt.getTime() ?? 0)).toBe(3_600_000);
    expect(callsIn(conversation)).toHaveLength(1);
  });
});

describe('conversations', () => {
  it("are threads of their own: a conversation's turns are remembered, another conversation's are not", async () => {
    const setup = await setUp();
    const [one, two] = [`c-${randomUUID()}`, `c-${randomUUID()}`];
    model.script({ text: ['first answer'] }, { text: ['second answer'] }, { text: ['elsewhere'] });
    await send(setup, { conversation: one, text: 'first question' });
    await waitForQueueStatus(database, setup.agent.agentId, 'done', 1);
    await send(setup, { conversation: one, text: 'second question' });
    await waitForQueueStatus(database, setup.agent.agentId, 'done', 2);
    await send(setup, { conversation: two, text: 'other question' });
    await waitForQueueStatus(database, setup.agent.agentId, 'done', 3);
    const contents = (index: number) =>
      model.requests
        .at(index)
        ?.body.messages.filter((m) => m.role !== 'system')
        .map((m) => m.content);
    expect(contents(-2)).toEqual(['first question', 'first answer', 'second question']);
    expect(contents(-1)).toEqual(['other question']);
    const threads = await database.prisma.conversationThread.findMany({ where: { agentId: setup.agent.agentId } });
    expect(threads.map((thread) => thread.externalKey).sort()).toEqual(
      [one, two]
        .map((conversation) => threadKeyOf(setup.agent.agentId, 'TELEGRAM', setup.integrationId, conversation))
        .sort(),
    );
  });
});

describe('an agent with integrations of several providers', () => {
  it('is answered on each, through each provider', async () => {
    const graph = await startFakeGraphApi();
    try {
      const whatsapp = makeWhatsAppConfig();
      const secretToken = `secret_${randomUUID().replaceAll('-', '')}`;
      const agent = await publishChannelAgent(database, [
        { provider: 'TELEGRAM', config: { botToken: 'bot', secretToken } },
        { provider: 'WHATSAPP', config: whatsapp },
      ]);
      const [echoId, whatsappId] = agent.integrations.map((integration) => integration.id) as [string, string];
      const engine = await startChannelEngine(
        database,
        agent,
        { CHANNEL_POLL_MS: '50', GRAPH_API_BASE_URL: graph.baseUrl },
        { channelAdapters: [createEchoAdapter({ baseUrl: api.baseUrl })] },
      );
      engines.push(engine);
      const conversation = `c-${randomUUID()}`;
      const echo = { id: `m-${randomUUID()}`, conversation, sender: 'u-1', text: 'via echo' };
      await postEchoDelivery(channelWebhookUrl(engine.url, ECHO_SLUG, echoId), echo, secretToken);
      const body = JSON.stringify(makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915', text: 'via whatsapp' }]));
      const response = await fetch(channelWebhookUrl(engine.url, 'whatsapp', whatsappId), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Hub-Signature-256': signBody(body, whatsapp.appSecret ?? ''),
        },
        body,
      });
      expect(await response.text()).toBe('EVENT_RECEIVED');
      await waitForQueueStatus(database, agent.agentId, 'done', 2);
      expect(callsIn(conversation).at(-1)?.body.text).toBe('You said: via echo');
      expect(graph.delivered.map((request) => [request.body.to, request.body.text?.body])).toEqual([
        ['4915', 'You said: via whatsapp'],
      ]);
    } finally {
      await graph.close();
    }
  });
});
