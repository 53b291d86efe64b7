// The Telegram channel through a real database-mode engine: deliveries posted to its webhook route as
// Telegram posts them (the secret token in X-Telegram-Bot-Api-Secret-Token), a fake model that streams,
// and a local fake of the Bot API that records every call, keeps each message with its edits, and
// answers 429 with retry_after when told to.
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
import { ALLOW_EVERYTHING_STDIO, EVERYTHING_SUM, everythingStdioServer } from '../../testing/everything-server.js';
import { FAKE_BOT_USERNAME, type FakeTelegramApi, startFakeTelegramApi } from '../../testing/fake-telegram-api.js';
import { telegramButtonPress, telegramTextUpdate, telegramWebhookHeaders } from '../../testing/telegram-updates.js';
import { MAX_MESSAGE_AGE_MS } from './telegram-receive.js';

let database: TestDatabase;
let model: FakeOpenAiServer;
let telegram: FakeTelegramApi;
let engines: RunningEngine[] = [];

beforeAll(async () => {
  [database, model, telegram] = await Promise.all([
    createTestDatabase(),
    startFakeOpenAiServer(),
    startFakeTelegramApi(),
  ]);
});

afterEach(async () => {
  for (const engine of engines) await engine.shutdown();
  engines = [];
});

afterAll(async () => {
  await telegram?.close();
  await model?.close();
  await database?.drop();
});

type Setup = { agent: ChannelAgent; engine: RunningEngine; secretToken: string; webhook: string; botToken: string };

let nextBot = 100;

/** An agent with one Telegram integration on the fake model (and `options`), served by an engine. */
async function setUp(options: Omit<TestConfigOptions, 'model'> = {}, env: Record<string, string> = {}): Promise<Setup> {
  const secretToken = `secret_${randomUUID().replaceAll('-', '')}`;
  const botToken = `${++nextBot}:token-${randomUUID()}`;
  const agent = await publishChannelAgent(database, [{ provider: 'TELEGRAM', config: { botToken, secretToken } }], {
    model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
    ...options,
  });
  const engine = await startChannelEngine(database, agent, {
    TELEGRAM_API_BASE_URL: telegram.baseUrl,
    CHANNEL_POLL_MS: '50',
    CHANNEL_RETRY_BASE_MS: '20',
    ...env,
  });
  engines.push(engine);
  const webhook = channelWebhookUrl(engine.url, 'telegram', agent.integrations[0]?.id ?? '');
  return { agent, engine, secretToken, webhook, botToken };
}

/** Posts `update` as Telegram does, with the integration's secret token unless `secret` says otherwise. */
const deliver = (setup: Setup, update: unknown, secret: { token: string | undefined } = { token: setup.secretToken }) =>
  fetch(setup.webhook, { method: 'POST', headers: telegramWebhookHeaders(secret.token), body: JSON.stringify(update) });

// Each test has a bot and chats of its own.
const messagesIn = (chatId: number) =>
  [...telegram.messages.values()].filter((message) => message.chatId === String(chatId));
const callsOf = (setup: Setup, method: string) =>
  telegram.calls.filter((call) => call.token === setup.botToken && call.method === method);

describe('a delivery with the secret token', () => {
  it('is answered in its chat and forum topic, in Telegram HTML', async () => {
    const setup = await setUp();
    model.script({ text: ['Hello ', '**there**'] });
    const update = telegramTextUpdate({
      updateId: 1,
      text: 'hi',
      chatId: -100700,
      fromId: 71,
      chatType: 'supergroup',
      topicId: 5,
      messageId: 900,
    });
    (update.message as Record<string, unknown>).text = `@agentplane_test_bot hi`;
    (update.message as Record<string, unknown>).entities = [{ type: 'mention', offset: 0, length: 20 }];
    const response = await deliver(setup, update);
    expect(response.status).toBe(200);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const [reply] = messagesIn(-100700);
    expect(reply).toMatchObject({
      text: 'Hello <b>there</b>',
      parseMode: 'HTML',
      messageThreadId: 5,
      replyToMessageId: 900,
    });
  });
});

describe('a delivery Telegram did not send', () => {
  it('without the secret token, or with another, is a 401 and nothing is queued or sent', async () => {
    const setup = await setUp();
    for (const secret of [undefined, 'someone-elses-secret-token-000']) {
      const response = await deliver(setup, telegramTextUpdate({ updateId: 2, text: 'forged' }), { token: secret });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
    expect(callsOf(setup, 'sendMessage')).toEqual([]);
  });

  it('that is not an Update, or holds a NUL, is a 4xx; one for an integration the agent lacks is a 404', async () => {
    const setup = await setUp();
    const post = (url: string, body: string) =>
      fetch(url, { method: 'POST', headers: telegramWebhookHeaders(setup.secretToken), body });
    expect((await post(setup.webhook, '{"update_id":')).status).toBe(400);
    expect((await post(setup.webhook, '{"message":{}}')).status).toBe(400);
    expect((await post(setup.webhook, '{"update_id":9,"message":{"text":"a\\u0000"}}')).status).toBe(422);
    const unknown = channelWebhookUrl(setup.engine.url, 'telegram', randomUUID());
    expect((await post(unknown, JSON.stringify(telegramTextUpdate({ updateId: 9, text: 'x' })))).status).toBe(404);
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
  });

  it('that is stale (a message older than a day) is acknowledged and dropped: nothing queued', async () => {
    const setup = await setUp();
    const date = Math.floor((Date.now() - MAX_MESSAGE_AGE_MS) / 1000) - 60;
    const response = await deliver(setup, telegramTextUpdate({ updateId: 3, text: 'old', date }));
    expect(response.status).toBe(200);
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
  });
});

describe('the same delivery twice', () => {
  it('is queued and answered once', async () => {
    const setup = await setUp();
    model.script({ text: ['once'] });
    const before = model.requests.length;
    const update = telegramTextUpdate({ updateId: 4, text: 'hi', chatId: 7004 });
    const answers = await Promise.all([deliver(setup, update), deliver(setup, update)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    await deliver(setup, update);
    expect(await queueRows(database, setup.agent.agentId)).toHaveLength(1);
    expect(model.requests.length - before).toBe(1);
    expect(callsOf(setup, 'sendMessage')).toHaveLength(1);
  });
});

describe('a reply', () => {
  it('streams: posted at the first text, then edited into the whole reply', async () => {
    const setup = await setUp();
    // The model says something, calls a tool, and goes on only once Telegram shows the first words.
    const posted = waitUntil(() => messagesIn(7005).length > 0, {
      what: 'the first text to be posted',
      timeoutMs: 30_000,
    });
    model.script(
      { text: ['Let me look.'], toolCalls: [{ id: 'call_1', name: 'lookup', arguments: ['{}'] }] },
      { gate: posted, turn: { text: ['Found **it**.'] } },
    );
    await deliver(setup, telegramTextUpdate({ updateId: 5, text: 'hi', chatId: 7005 }));
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const [message, ...others] = messagesIn(7005);
    expect(others).toEqual([]);
    expect(message?.versions).toEqual(['Let me look.', 'Let me look.\n\nFound <b>it</b>.']);
    expect(callsOf(setup, 'sendMessage')).toHaveLength(1);
  });

  it("waits out a 429's retry_after before it is sent again", async () => {
    const setup = await setUp();
    telegram.script('sendMessage', {
      status: 429,
      description: 'Too Many Requests: retry after 3600',
      retryAfter: 3600,
    });
    // A sticker: answered with the fixed reply, one post and no streaming, so the 429 meets that post.
    const update = telegramTextUpdate({ updateId: 6, text: '', chatId: 7006 });
    const message = update.message as Record<string, unknown>;
    delete message.text;
    message.sticker = { file_id: 'sticker' };
    await deliver(setup, update);
    await waitUntil(async () => (await queueRows(database, setup.agent.agentId))[0]?.lastError != null, {
      what: 'the 429 to be recorded',
    });
    const [row] = await queueRows(database, setup.agent.agentId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, replyPartsSent: 0 });
    expect(row?.lastError).toMatch(/429/);
    // The backoff would be 20 ms: Telegram's hour is the floor.
    expect((row?.nextAttemptAt.getTime() ?? 0) - (row?.updatedAt.getTime() ?? 0)).toBe(3_600_000);
    expect(callsOf(setup, 'sendMessage')).toHaveLength(1);
  });
});

describe('an approval button press', () => {
  it('stops the spinner in the webhook answer and is queued as a decision, never as a message to answer', async () => {
    const setup = await setUp();
    const interruptId = randomUUID();
    const press = telegramButtonPress({
      updateId: 7,
      data: `ap:n:${interruptId}`,
      chatId: 7007,
      fromId: 7007,
      messageId: 1,
    });
    const response = await deliver(setup, press);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ method: 'answerCallbackQuery', callback_query_id: 'cbq-7' });
    const [row] = await queueRows(database, setup.agent.agentId);
    expect(row).toMatchObject({
      kind: 'approval',
      conversation: '7007',
      sender: '7007',
      payload: { interruptId, approved: false, address: { chatId: '7007' } },
    });
    // No run of this conversation waits for it: the press resumes nothing and nothing is posted.
    await waitForQueueStatus(database, setup.agent.agentId, 'skipped');
    expect(callsOf(setup, 'sendMessage')).toEqual([]);
  });
});

describe('a tool call needing approval', () => {
  it("shows Approve and Reject buttons; another member's press resumes nothing, the asker's resumes the run", async () => {
    const setup = await setUp(
      { mcpServers: [everythingStdioServer()], tools: { approval: ['*__get-sum'] } },
      ALLOW_EVERYTHING_STDIO,
    );
    const group = -7009;
    const [asker, other] = [91, 92];
    model.script({ toolCalls: [{ id: 'call_sum', name: EVERYTHING_SUM, arguments: ['{"a":2,"b":40}'] }] });
    const handle = `@${FAKE_BOT_USERNAME}`;
    const question = telegramTextUpdate({
      updateId: 8,
      text: `${handle} add 2 and 40`,
      chatId: group,
      fromId: asker,
      chatType: 'group',
    });
    (question.message as Record<string, unknown>).entities = [{ type: 'mention', offset: 0, length: handle.length }];
    await deliver(setup, question);
    await waitUntil(() => messagesIn(group).some((message) => message.replyMarkup !== undefined), {
      what: 'the approval message',
    });
    const approval = messagesIn(group).find((message) => message.replyMarkup !== undefined);
    type Button = { text: string; callback_data: string };
    const keyboard = (approval?.replyMarkup as { inline_keyboard: Button[][] } | undefined)?.inline_keyboard;
    const [approve, reject] = keyboard?.[0] ?? [];
    expect([approve?.text, reject?.text]).toEqual(['Approve', 'Reject']);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');

    const pressAs = (fromId: number, updateId: number) =>
      deliver(
        setup,
        telegramButtonPress({
          updateId,
          data: approve?.callback_data ?? '',
          chatId: group,
          fromId,
          messageId: approval?.messageId ?? 0,
        }),
      );
    const requestsBefore = model.requests.length;
    await pressAs(other, 9);
    const [skipped] = await waitForQueueStatus(database, setup.agent.agentId, 'skipped');
    expect(skipped?.sender).toBe(String(other));
    expect(model.requests.length).toBe(requestsBefore);

    model.script({ text: ['The sum is **42**.'] });
    await pressAs(asker, 10);
    await waitForQueueStatus(database, setup.agent.agentId, 'done', 2);
    expect(messagesIn(group).at(-1)?.text).toBe('The sum is <b>42</b>.');
    expect(JSON.stringify(model.requests.at(-1)?.body.messages.filter((m) => m.role === 'tool'))).toContain('42');
  });
});
