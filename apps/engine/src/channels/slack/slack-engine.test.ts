// Slack from request to reply, through a real database-mode engine, a fake Slack Web API and the mock
// or a fake OpenAI model: the handshake, refusals that queue nothing, one reply per message in its
// thread, Retry-After, and a reply streamed as edits of one message.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import {
  type ChannelAgent,
  channelWebhookUrl,
  publishChannelAgent,
  queueRows,
  startChannelEngine,
  waitForQueueStatus,
} from '../../testing/channel-agent.js';
import type { TestConfigOptions } from '../../testing/engine-configs.js';
import { type FakeSlackApi, startFakeSlackApi } from '../../testing/fake-slack-api.js';
import {
  messageEventRequest,
  nextSlackTs,
  type PostOptions,
  postSlackRequest,
  type SlackRequest,
  urlVerificationRequest,
} from '../../testing/slack-deliveries.js';
import { SLACK_TEXT_LIMIT } from './format-mrkdwn.js';

const botToken = `xoxb-${randomUUID()}`;
const appId = 'A0ENGINE001';

let database: TestDatabase;
let slack: FakeSlackApi;
let model: FakeOpenAiServer;
let engines: RunningEngine[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  slack = await startFakeSlackApi({ botToken });
  model = await startFakeOpenAiServer();
});

afterEach(async () => {
  for (const engine of engines) await engine.shutdown();
  engines = [];
});

afterAll(async () => {
  await slack?.close();
  await model?.close();
  await database?.drop();
});

type Setup = { agent: ChannelAgent; engine: RunningEngine; url: string; signingSecret: string };

async function setUp(options: TestConfigOptions = {}): Promise<Setup> {
  const signingSecret = `signing-${randomUUID()}`;
  const agent = await publishChannelAgent(
    database,
    [{ provider: 'SLACK', config: { botToken, signingSecret, appId } }],
    options,
  );
  const engine = await startChannelEngine(database, agent, {
    SLACK_API_BASE_URL: slack.baseUrl,
    SLACK_API_TIMEOUT_MS: '60000',
    CHANNEL_POLL_MS: '50',
    CHANNEL_RETRY_BASE_MS: '20',
  });
  engines.push(engine);
  const url = channelWebhookUrl(engine.url, 'slack', agent.integrations[0]?.id ?? '');
  return { agent, engine, url, signingSecret };
}

const fakeModel = (): TestConfigOptions => ({ model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl } });

async function post(
  setup: Setup,
  request: SlackRequest,
  options: PostOptions = { signingSecret: setup.signingSecret },
) {
  return postSlackRequest(setup.url, request, options);
}

/** A channel of its own per test: the fake's records are shared by the suite. */
const freshChannel = () => `C${randomUUID().replaceAll('-', '').slice(0, 10).toUpperCase()}`;
const postsIn = (channel: string) =>
  slack.delivered.filter((call) => call.method === 'chat.postMessage' && call.args.channel === channel);
const callsIn = (channel: string) => slack.calls.filter((call) => call.args.channel === channel);
const messagesIn = (channel: string) => slack.messages().filter((message) => message.channel === channel);

describe('the Events API handshake', () => {
  it('answers url_verification with its challenge once the signature holds, and queues nothing', async () => {
    const setup = await setUp();
    const response = await post(setup, urlVerificationRequest('challenge-123'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'challenge-123' });
    const unsigned = await post(setup, urlVerificationRequest('challenge-123'), {});
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
  });

  it('is listed by /health as checking every delivery', async () => {
    const setup = await setUp();
    const health = (await (await fetch(`${setup.engine.url}/health`)).json()) as { integrations: unknown[] };
    expect(health.integrations).toEqual([
      { id: setup.agent.integrations[0]?.id, provider: 'SLACK', deliveries: 'signature_required' },
    ]);
  });
});

describe('a signed message', () => {
  it('is answered once, in its thread, with the bot token', async () => {
    const setup = await setUp();
    const channel = freshChannel();
    const ts = nextSlackTs();
    const response = await post(setup, messageEventRequest({ appId, channel, ts, user: 'U0ALICE0001', text: 'hello' }));
    expect(response.status).toBe(200);
    const [row] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(row).toMatchObject({ sender: 'U0ALICE0001', conversation: `${channel}:${ts}` });
    expect(messagesIn(channel)).toEqual([expect.objectContaining({ threadTs: ts, text: 'You said: hello' })]);
    expect(postsIn(channel)).toEqual([expect.objectContaining({ authorization: `Bearer ${botToken}` })]);
  });

  it('delivered twice, and once more as the mention it also is, gives one reply', async () => {
    const setup = await setUp();
    const channel = freshChannel();
    const ts = nextSlackTs();
    const message = messageEventRequest({ appId, channel, ts, text: 'once' });
    const mention = messageEventRequest({ appId, channel, ts, text: 'once', eventType: 'app_mention' });
    const responses = await Promise.all([
      post(setup, message),
      // Slack's retry of the same event.
      post(setup, message, { signingSecret: setup.signingSecret, headers: { 'X-Slack-Retry-Num': '1' } }),
      post(setup, mention),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(await queueRows(database, setup.agent.agentId)).toHaveLength(1);
    expect(postsIn(channel)).toHaveLength(1);
  });

  it('from a bot, the app itself included, is acknowledged and not answered', async () => {
    const setup = await setUp();
    const response = await post(setup, messageEventRequest({ appId, extra: { bot_id: 'B0OURBOT01' } }));
    expect(response.status).toBe(200);
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
  });

  it("splits a reply over Slack's 4,000 characters into messages in the thread, in order", async () => {
    const setup = await setUp();
    const channel = freshChannel();
    const text = Array.from({ length: 900 }, (_, i) => `word${i}`).join(' ');
    await post(setup, messageEventRequest({ appId, channel, text }));
    const [row] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const parts = messagesIn(channel).map((message) => message.text);
    expect(parts.length).toBe(2);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(SLACK_TEXT_LIMIT);
    expect(parts.join(' ')).toBe(`You said: ${text}`);
    expect(row?.replyPartsSent).toBe(2);
  });
});

describe('a refused request queues nothing', () => {
  it('unsigned, signed with another secret, stale, from the future, or for another app', async () => {
    const setup = await setUp();
    const channel = freshChannel();
    const request = messageEventRequest({ appId, channel });
    const now = Math.floor(Date.now() / 1000);
    const refusals = await Promise.all([
      post(setup, request, {}),
      post(setup, request, { signingSecret: 'another-secret' }),
      post(setup, request, { headers: { 'X-Slack-Signature': 'v0=00', 'X-Slack-Request-Timestamp': String(now) } }),
      // A captured request replayed six minutes later.
      post(setup, request, { signingSecret: setup.signingSecret, timestampS: now - 6 * 60 }),
      post(setup, request, { signingSecret: setup.signingSecret, timestampS: now + 6 * 60 }),
    ]);
    expect(refusals.map((response) => response.status)).toEqual([401, 401, 401, 401, 401]);
    const foreign = await post(setup, messageEventRequest({ appId: 'A0SOMEONE01', channel }));
    expect(foreign.status).toBe(403);
    expect((await foreign.json()) as unknown).toMatchObject({ status: 403 });
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
    expect(callsIn(channel)).toEqual([]);
  });

  it('with a body Slack never sends, or for an integration the agent does not have', async () => {
    const setup = await setUp();
    const json = (body: string): SlackRequest => ({ body, contentType: 'application/json' });
    const statuses = await Promise.all([
      post(setup, json('{not json')),
      post(setup, json(JSON.stringify({ type: 'event_callback', api_app_id: appId }))),
      post(setup, messageEventRequest({ appId, text: 'nul \u0000 inside' })),
      post(setup, { body: 'hello', contentType: 'text/plain' }),
    ]);
    expect(statuses.map((response) => response.status)).toEqual([400, 400, 422, 415]);
    const unknown = await postSlackRequest(
      channelWebhookUrl(setup.engine.url, 'slack', randomUUID()),
      messageEventRequest({ appId }),
      { signingSecret: setup.signingSecret },
    );
    expect(unknown.status).toBe(404);
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
  });
});

describe('Slack failures', () => {
  it("waits at least a 429's Retry-After, then replies once", async () => {
    const setup = await setUp();
    const channel = freshChannel();
    // The first post (the stream's, or the final one's when the run ended first) is told to come back in an hour.
    slack.script('chat.postMessage', { status: 429, headers: { 'Retry-After': '3600' } });
    await post(setup, messageEventRequest({ appId, channel, text: 'busy?' }));
    await waitUntil(async () => (await queueRows(database, setup.agent.agentId))[0]?.lastError != null, {
      what: 'the 429 to be recorded',
    });
    const [waiting] = await queueRows(database, setup.agent.agentId);
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1, replyText: 'You said: busy?', replyPartsSent: 0 });
    // The backoff would be 20 ms: Slack's hour is the floor.
    expect((waiting?.nextAttemptAt.getTime() ?? 0) - (waiting?.updatedAt.getTime() ?? 0)).toBe(3_600_000);
    expect(messagesIn(channel)).toEqual([]);
    // Nothing called Slack again within the hour: neither the stream nor the final delivery.
    expect(callsIn(channel)).toHaveLength(1);
    // The hour is not waited out here: the row is made due, as if it had passed.
    await database.prisma.inboundMessage.updateMany({
      where: { agentId: setup.agent.agentId },
      data: { nextAttemptAt: new Date(0) },
    });
    const [row] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(row?.attempts).toBe(2);
    expect(messagesIn(channel).map((message) => message.text)).toEqual(['You said: busy?']);
  });
});

describe('a streamed reply', () => {
  it('is posted once and then edited into the whole reply, in mrkdwn', async () => {
    const setup = await setUp(fakeModel());
    const channel = freshChannel();
    const ts = nextSlackTs();
    // The rest of the reply comes once the first words are posted: they are edited into the whole reply.
    const posting = waitUntil(() => callsIn(channel).length > 0, { what: 'the first words to be posted' });
    model.script({ text: ['Hello', posting, ' **there**', ', friend'] });
    await post(setup, messageEventRequest({ appId, channel, ts }));
    const [row] = await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const calls = callsIn(channel);
    const posted = (row?.replyState as { posted: string[] } | null)?.posted[0];
    expect(calls[0]).toMatchObject({ method: 'chat.postMessage', args: { thread_ts: ts } });
    expect(calls.slice(1).length).toBeGreaterThan(0);
    expect(calls.slice(1).every((call) => call.method === 'chat.update' && call.args.ts === posted)).toBe(true);
    expect(messagesIn(channel)).toEqual([
      expect.objectContaining({ ts: posted, threadTs: ts, text: 'Hello \u200b*there*\u200b, friend' }),
    ]);
  });
});
