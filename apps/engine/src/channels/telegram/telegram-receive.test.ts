import { randomUUID } from 'node:crypto';
import { AppError } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FAKE_BOT_USERNAME, type FakeTelegramApi, startFakeTelegramApi } from '../../testing/fake-telegram-api.js';
import { telegramButtonPress, telegramTextUpdate, telegramWebhookHeaders } from '../../testing/telegram-updates.js';
import type { IntegrationOf, ReceivedDelivery } from '../channel-adapter.js';
import { createTelegramAdapter } from './telegram-adapter.js';
import { MAX_MESSAGE_AGE_MS } from './telegram-receive.js';

const SECRET = 'telegram-secret-token-0123456789';
const BOT_ID = 777001;

function makeIntegration(overrides: Partial<IntegrationOf<'TELEGRAM'>['config']> = {}): IntegrationOf<'TELEGRAM'> {
  return {
    id: randomUUID(),
    provider: 'TELEGRAM',
    enabled: true,
    config: { botToken: `${BOT_ID}:bot-token-secret`, secretToken: SECRET, ...overrides },
  } as IntegrationOf<'TELEGRAM'>;
}

let api: FakeTelegramApi;
let adapter: ReturnType<typeof createTelegramAdapter>;
const integration = makeIntegration();
const NOW = Date.parse('2026-06-01T12:00:00Z');
const nowSeconds = NOW / 1000;

beforeAll(async () => {
  api = await startFakeTelegramApi();
  adapter = createTelegramAdapter({ apiBaseUrl: api.baseUrl, apiTimeoutMs: 30_000 });
});
afterAll(() => api.close());

function receive(
  body: unknown,
  headers = telegramWebhookHeaders(SECRET),
  target = integration,
): Promise<ReceivedDelivery> {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return adapter.receive(
    { rawBody: raw, header: (name) => lower.get(name), url: 'http://engine.test/hook', now: NOW },
    target,
  );
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('the secret token', () => {
  const update = telegramTextUpdate({ updateId: 1, text: 'hi', date: nowSeconds });

  it('is required: a delivery without it is a 401', async () => {
    expect((await refusal(receive(update, telegramWebhookHeaders(undefined)))).status).toBe(401);
  });

  it("must be this integration's: another one's, a prefix of it or an empty one is a 401", async () => {
    for (const given of ['another-secret-token-0123456789ab', SECRET.slice(0, -1), '']) {
      expect((await refusal(receive(update, telegramWebhookHeaders(given)))).status).toBe(401);
    }
    const other = makeIntegration({ secretToken: 'the-other-integration-secret-00' });
    expect((await refusal(receive(update, telegramWebhookHeaders(SECRET), other))).status).toBe(401);
  });

  it('is checked before the body is read: garbage without it is a 401, not a 400', async () => {
    expect((await refusal(receive('not json', telegramWebhookHeaders('wrong')))).status).toBe(401);
  });
});

describe('reading a delivery', () => {
  it('reads a private text message into one item answered in its chat', async () => {
    const delivery = await receive(telegramTextUpdate({ updateId: 42, text: 'hello', chatId: 5005, date: nowSeconds }));
    expect(delivery.answer.status).toBe(200);
    expect(delivery.items).toEqual([
      {
        kind: 'message',
        providerMessageId: '42',
        conversation: '5005',
        sender: '5005',
        address: { chatId: '5005' },
        text: 'hello',
        attachments: [],
      },
    ]);
  });

  it('keeps a forum topic as its own conversation and replies in it, quoting the message', async () => {
    const update = telegramTextUpdate({
      updateId: 43,
      text: 'in a topic',
      chatId: -100200,
      fromId: 9,
      chatType: 'supergroup',
      topicId: 12,
      messageId: 88,
      date: nowSeconds,
    });
    (update.message as Record<string, unknown>).reply_to_message = { from: { id: BOT_ID, is_bot: true } };
    const [item] = (await receive(update)).items;
    expect(item).toMatchObject({
      conversation: '-100200:12',
      sender: '9',
      address: { chatId: '-100200', messageThreadId: '12', replyToMessageId: '88' },
    });
  });

  it('reads files as references: the largest photo, with the caption as the text', async () => {
    const update = telegramTextUpdate({ updateId: 44, text: '', date: nowSeconds });
    const message = update.message as Record<string, unknown>;
    delete message.text;
    message.caption = 'look';
    message.photo = [{ file_id: 'small' }, { file_id: 'large' }];
    message.document = { file_id: 'doc', file_name: 'a.pdf', mime_type: 'application/pdf' };
    const [item] = (await receive(update)).items;
    expect(item).toMatchObject({
      text: 'look',
      attachments: [
        { kind: 'image', ref: 'large' },
        { kind: 'file', ref: 'doc', name: 'a.pdf', mimeType: 'application/pdf' },
      ],
    });
  });

  it('reads a sticker as a message without text (answered with the fixed reply)', async () => {
    const update = telegramTextUpdate({ updateId: 45, text: '', date: nowSeconds });
    const message = update.message as Record<string, unknown>;
    delete message.text;
    message.sticker = { file_id: 'sticker-1' };
    expect((await receive(update)).items).toMatchObject([{ text: undefined, attachments: [{ kind: 'other' }] }]);
  });

  it('queues nothing for what needs no answer: bots, service messages, edits, a message older than a day', async () => {
    const fromBot = telegramTextUpdate({ updateId: 50, text: 'beep', fromBot: true, date: nowSeconds });
    const service = telegramTextUpdate({ updateId: 51, text: '', date: nowSeconds });
    delete (service.message as Record<string, unknown>).text;
    const edited = { update_id: 52, edited_message: telegramTextUpdate({ updateId: 52, text: 'x' }).message as object };
    const stale = telegramTextUpdate({ updateId: 53, text: 'old', date: (NOW - MAX_MESSAGE_AGE_MS) / 1000 - 1 });
    for (const update of [fromBot, service, edited, stale]) {
      expect(await receive(update)).toEqual({
        answer: { status: 200, contentType: 'text/plain', body: 'ok' },
        items: [],
      });
    }
  });

  it('refuses a body that is not an Update, or holds text PostgreSQL cannot store, with a 4xx', async () => {
    expect((await refusal(receive('{'))).status).toBe(400);
    expect((await refusal(receive({ message: {} }))).status).toBe(400);
    expect((await refusal(receive('{"update_id":1,"message":{"text":"a\\u0000b"}}'))).status).toBe(422);
    expect((await refusal(receive('{"update_id":1,"message":{"text":"\\ud800"}}'))).status).toBe(422);
  });
});

describe('group chats', () => {
  const groupMessage = (updateId: number, text: string, entities?: object[]) => {
    const update = telegramTextUpdate({
      updateId,
      text,
      chatId: -300,
      fromId: 31,
      chatType: 'group',
      date: nowSeconds,
    });
    if (entities !== undefined) (update.message as Record<string, unknown>).entities = entities;
    return update;
  };

  it('answers a message that mentions the bot or addresses a command to it, asking getMe once', async () => {
    const before = api.calls.filter((call) => call.method === 'getMe').length;
    const handle = `@${FAKE_BOT_USERNAME}`;
    const mention = groupMessage(60, `hey ${handle} help`, [{ type: 'mention', offset: 4, length: handle.length }]);
    const command = groupMessage(61, `/ask${handle} x`, [
      { type: 'bot_command', offset: 0, length: 4 + handle.length },
    ]);
    expect((await receive(mention)).items).toMatchObject([
      { conversation: '-300', address: { replyToMessageId: '60' } },
    ]);
    expect((await receive(command)).items).toHaveLength(1);
    expect(api.calls.filter((call) => call.method === 'getMe').length - before).toBe(1);
  });

  it("leaves the group's other talk alone: no mention, another bot's mention, another bot's command", async () => {
    const other = '@someone_else_bot';
    for (const update of [
      groupMessage(62, 'just chatting'),
      groupMessage(63, `hi ${other}`, [{ type: 'mention', offset: 3, length: other.length }]),
      groupMessage(64, `/start${other}`, [{ type: 'bot_command', offset: 0, length: 6 + other.length }]),
    ]) {
      expect((await receive(update)).items).toEqual([]);
    }
  });
});

describe('button presses', () => {
  const interruptId = randomUUID();

  it('reads an approval press into an approval item and stops the spinner in the webhook answer', async () => {
    const delivery = await receive(
      telegramButtonPress({ updateId: 70, data: `ap:y:${interruptId}`, chatId: 5005, fromId: 5005, messageId: 3 }),
    );
    expect(delivery.items).toEqual([
      {
        kind: 'approval',
        providerMessageId: '70',
        conversation: '5005',
        sender: '5005',
        address: { chatId: '5005' },
        interruptId,
        approved: true,
      },
    ]);
    expect(delivery.answer).toEqual({
      status: 200,
      contentType: 'application/json',
      body: JSON.stringify({ method: 'answerCallbackQuery', callback_query_id: 'cbq-70' }),
    });
  });

  it('reads a rejection, and answers a press of a button that is not an approval without queueing it', async () => {
    const reject = await receive(
      telegramButtonPress({ updateId: 71, data: `ap:n:${interruptId}`, chatId: 1, fromId: 2, messageId: 3 }),
    );
    expect(reject.items).toMatchObject([{ kind: 'approval', approved: false, sender: '2' }]);
    const foreign = await receive(
      telegramButtonPress({ updateId: 72, data: 'menu:1', chatId: 1, fromId: 2, messageId: 3 }),
    );
    expect(foreign.items).toEqual([]);
    expect(JSON.parse(foreign.answer.body)).toEqual({ method: 'answerCallbackQuery', callback_query_id: 'cbq-72' });
  });
});
