import { randomUUID } from 'node:crypto';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeTelegramApi, startFakeTelegramApi } from '../../testing/fake-telegram-api.js';
import { holdRefusingPort } from '../../testing/refusing-port.js';
import { ChannelApiError, type ChannelOutbound, type IntegrationOf } from '../channel-adapter.js';
import { decodeApprovalCallback } from './approval-callback.js';
import { createTelegramAdapter } from './telegram-adapter.js';

const BOT_TOKEN = '777002:outbound-bot-token';
const integration = {
  id: randomUUID(),
  provider: 'TELEGRAM',
  enabled: true,
  config: { botToken: BOT_TOKEN, secretToken: 'telegram-secret-token-0123456789' },
} as IntegrationOf<'TELEGRAM'>;

let api: FakeTelegramApi;
let outbound: ChannelOutbound;
const signal = new AbortController().signal;

beforeAll(async () => {
  api = await startFakeTelegramApi();
  outbound = createTelegramAdapter({ apiBaseUrl: api.baseUrl, apiTimeoutMs: 30_000 }).outbound(integration);
});
afterAll(() => api.close());

async function failure(promise: Promise<unknown>): Promise<ChannelApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ChannelApiError);
  expect((error as Error).message).not.toContain(BOT_TOKEN);
  return error as ChannelApiError;
}

const lastCall = () => api.calls.at(-1);

describe('posting and editing', () => {
  it('posts formatted text in HTML mode to the chat, topic and quoted message of the address', async () => {
    const html = outbound.format('**Done**: `a < b`');
    const address = { chatId: '-100500', messageThreadId: '7', replyToMessageId: '41' };
    const id = await outbound.post(address, html, signal);
    expect(lastCall()).toMatchObject({
      method: 'sendMessage',
      token: BOT_TOKEN,
      body: {
        chat_id: '-100500',
        text: '<b>Done</b>: <code>a &lt; b</code>',
        parse_mode: 'HTML',
        message_thread_id: 7,
        reply_parameters: { message_id: 41, allow_sending_without_reply: true },
      },
    });
    expect(api.messages.get(Number(id))).toMatchObject({ chatId: '-100500', messageThreadId: 7, replyToMessageId: 41 });
  });

  it('streams by editing the posted message, and takes an edit that changes nothing as done', async () => {
    const address = { chatId: '5005' };
    const id = await outbound.post(address, outbound.format('Hel'), signal);
    await outbound.edit?.(address, id, outbound.format('Hello **wor**'), signal);
    await outbound.edit?.(address, id, outbound.format('Hello **wor**'), signal);
    expect(lastCall()?.method).toBe('editMessageText');
    expect(api.messages.get(Number(id))?.versions).toEqual(['Hel', 'Hello <b>wor</b>']);
    expect(outbound.editIntervalMs).toBeGreaterThanOrEqual(3000);
  });

  it('sends a part whose markup was cut apart as plain text rather than not at all', async () => {
    const id = await outbound.post({ chatId: '5005' }, '<b>bold &amp; cut', signal);
    expect(api.messages.get(Number(id))).toMatchObject({ text: 'bold & cut', parseMode: undefined });
  });

  it('splits nothing itself: 4096 characters is the most the worker may send at once', () => {
    expect(outbound.maxLength).toBe(4096);
  });
});

describe('failures', () => {
  it("honours a 429's retry_after: retryable, with the wait Telegram asked for", async () => {
    api.script('sendMessage', { status: 429, description: 'Too Many Requests: retry after 7', retryAfter: 7 });
    const error = await failure(outbound.post({ chatId: '5005' }, 'hi', signal));
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000, providerCode: 429 });
  });

  it('retries a 5xx, not a refusal that would fail again (a bot the person blocked)', async () => {
    api.script('editMessageText', { status: 502, description: 'Bad Gateway' });
    expect(await failure(outbound.edit?.({ chatId: '5005' }, '1', 'x', signal) ?? Promise.resolve())).toMatchObject({
      retryable: true,
      status: 502,
    });
    api.script('sendMessage', { status: 403, description: 'Forbidden: bot was blocked by the user' });
    expect(await failure(outbound.post({ chatId: '5005' }, 'hi', signal))).toMatchObject({
      retryable: false,
      status: 403,
    });
  });

  it('retries a call Telegram did not answer in time, or a base URL where nothing listens', async () => {
    let release = () => {};
    api.script('sendMessage', { gate: new Promise<void>((resolve) => (release = resolve)) });
    const slow = createTelegramAdapter({ apiBaseUrl: api.baseUrl, apiTimeoutMs: 200 }).outbound(integration);
    expect(await failure(slow.post({ chatId: '5005' }, 'hi', signal))).toMatchObject({
      retryable: true,
      status: undefined,
    });
    release();

    const port = await holdRefusingPort();
    try {
      const nowhere = createTelegramAdapter({ apiBaseUrl: port.origin, apiTimeoutMs: 30_000 }).outbound(integration);
      expect(await failure(nowhere.post({ chatId: '5005' }, 'hi', signal))).toMatchObject({ retryable: true });
    } finally {
      await port.release();
    }
  });

  it("rethrows the caller's abort as it is, not as a provider failure", async () => {
    let release = () => {};
    api.script('sendMessage', { gate: new Promise<void>((resolve) => (release = resolve)) });
    const controller = new AbortController();
    const calls = api.calls.length;
    const posting = outbound.post({ chatId: '5005' }, 'hi', controller.signal);
    await waitUntil(() => api.calls.length > calls, { what: 'the call reached Telegram' });
    const reason = new Error('lease lost');
    controller.abort(reason);
    await expect(posting).rejects.toBe(reason);
    release();
  });
});

describe('approval buttons', () => {
  it('posts the prompt as plain text under Approve and Reject buttons carrying the interrupt and the decision', async () => {
    const interruptId = randomUUID();
    const request = { interruptId, toolName: 'refund', prompt: 'Refund <order> 42?', requester: '5005' };
    const id = await outbound.askApproval?.({ chatId: '5005' }, request, signal);
    const message = api.messages.get(Number(id));
    expect(message).toMatchObject({ text: 'Refund <order> 42?', parseMode: undefined });
    type Button = { text: string; callback_data: string };
    const keyboard = (message?.replyMarkup as { inline_keyboard: Button[][] } | undefined)?.inline_keyboard;
    const [approve, reject] = keyboard?.[0] ?? [];
    if (approve === undefined || reject === undefined) throw new Error('expected two buttons in one row');
    expect([approve.text, reject.text]).toEqual(['Approve', 'Reject']);
    expect(decodeApprovalCallback(approve.callback_data)).toEqual({ interruptId, approved: true });
    expect(decodeApprovalCallback(reject.callback_data)).toEqual({ interruptId, approved: false });
  });

  it("refuses, without sending, an interrupt id too long for Telegram's 64-byte callback data", async () => {
    const before = api.calls.length;
    const request = { interruptId: 'x'.repeat(60), toolName: 't', prompt: 'p', requester: '1' };
    expect(
      await failure(outbound.askApproval?.({ chatId: '5005' }, request, signal) ?? Promise.resolve()),
    ).toMatchObject({
      retryable: false,
    });
    expect(api.calls.length).toBe(before);
  });
});
