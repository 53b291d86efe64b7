import { AppError } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeGoogleChatApi, startFakeGoogleChatApi } from '../../testing/fake-google-chat-api.js';
import { chatCardClickEvent, chatMessageEvent } from '../../testing/google-chat-events.js';
import type { ChannelAdapter, IntegrationOf } from '../channel-adapter.js';
import { createGoogleChatAdapter } from './google-chat-adapter.js';
import { makeDelivery, makeGoogleChatIntegration, PROJECT_NUMBER } from './google-chat-test-fixtures.js';

let google: FakeGoogleChatApi;
let adapter: ChannelAdapter<'GOOGLE_CHAT'>;
let integration: IntegrationOf<'GOOGLE_CHAT'>;

beforeAll(async () => {
  google = await startFakeGoogleChatApi();
  adapter = createGoogleChatAdapter(google.settings());
  integration = await makeGoogleChatIntegration(google);
});
afterAll(() => google.close());

const signed = () => google.signDelivery({ audience: PROJECT_NUMBER });

async function refusal(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { status: error.status, message: error.message };
}

describe('Google Chat deliveries', () => {
  it('reads a signed message into one item answered in its thread, with no synchronous reply', async () => {
    const received = await adapter.receive(makeDelivery(chatMessageEvent('hello there'), await signed()), integration);
    expect(received.answer).toEqual({ status: 200, contentType: 'application/json', body: '{}' });
    expect(received.items).toEqual([
      {
        kind: 'message',
        providerMessageId: 'spaces/AAAA/messages/M1.M1',
        conversation: 'spaces/AAAA/threads/T1',
        sender: 'users/111',
        address: { space: 'spaces/AAAA', thread: 'spaces/AAAA/threads/T1' },
        text: 'hello there',
        attachments: [],
      },
    ]);
  });

  it('makes a direct message one conversation, whatever thread each message comes in', async () => {
    const event = chatMessageEvent('hi', {
      space: 'spaces/DM1',
      thread: 'spaces/DM1/threads/X9',
      spaceType: 'DIRECT_MESSAGE',
    });
    const { items } = await adapter.receive(makeDelivery(event, await signed()), integration);
    expect(items[0]).toMatchObject({
      conversation: 'spaces/DM1',
      address: { space: 'spaces/DM1', thread: 'spaces/DM1/threads/X9' },
    });
  });

  it('keeps attachments as references to the provider copies, and text the agent cannot read as undefined', async () => {
    const event = chatMessageEvent('', {
      attachment: [
        {
          name: 'spaces/AAAA/messages/M1.M1/attachments/A1',
          contentName: 'photo.png',
          contentType: 'image/png',
          attachmentDataRef: { resourceName: 'ref-A1' },
        },
        {
          name: 'x',
          contentName: 'plan.pdf',
          contentType: 'application/pdf',
          driveDataRef: { driveFileId: 'drive-9' },
        },
      ],
    });
    const { items } = await adapter.receive(makeDelivery(event, await signed()), integration);
    expect(items[0]).toMatchObject({
      text: undefined,
      attachments: [
        { kind: 'image', ref: 'ref-A1', name: 'photo.png', mimeType: 'image/png' },
        { kind: 'file', ref: 'drive-9', name: 'plan.pdf', mimeType: 'application/pdf' },
      ],
    });
  });

  it('reads the message of someone who added the app to a space by mentioning it', async () => {
    const event = { ...chatMessageEvent('hello'), type: 'ADDED_TO_SPACE' };
    const { items } = await adapter.receive(makeDelivery(event, await signed()), integration);
    expect(items).toMatchObject([{ kind: 'message', providerMessageId: 'spaces/AAAA/messages/M1.M1', text: 'hello' }]);
  });

  it('reads a press of an approval button as an approval by the presser', async () => {
    const event = chatCardClickEvent('interrupt-1', 'reject', { user: 'users/222' });
    const { items } = await adapter.receive(makeDelivery(event, await signed()), integration);
    expect(items).toEqual([
      {
        kind: 'approval',
        providerMessageId: 'click:spaces/AAAA/messages/CARD.CARD:users/222:2026-01-05T10:01:00.000000Z:reject',
        conversation: 'spaces/AAAA/threads/T1',
        sender: 'users/222',
        address: { space: 'spaces/AAAA', thread: 'spaces/AAAA/threads/T1' },
        interruptId: 'interrupt-1',
        approved: false,
      },
    ]);
  });

  it('answers events that need no answer (added to a space, a bot message, another card) with nothing queued', async () => {
    const bot = chatMessageEvent('from a bot');
    (bot.message as { sender: { type: string } }).sender.type = 'BOT';
    const otherCard = {
      ...chatCardClickEvent('i', 'approve'),
      action: { actionMethodName: 'someoneElse' },
      common: {},
    };
    const added = {
      type: 'ADDED_TO_SPACE',
      eventTime: '2026-01-05T10:00:00Z',
      space: { name: 'spaces/AAAA' },
      user: { name: 'users/111' },
    };
    for (const event of [bot, otherCard, added]) {
      const received = await adapter.receive(makeDelivery(event, await signed()), integration);
      expect(received).toEqual({ answer: { status: 200, contentType: 'application/json', body: '{}' }, items: [] });
    }
  });

  it('accepts Google ID tokens when the audience is the endpoint URL, only when issued to Chat', async () => {
    const url = 'https://agents.example.com/integrations/google-chat/webhook/abc';
    const byUrl = { ...integration, config: { ...integration.config, audience: url } };
    const event = chatMessageEvent('hi');
    const token = await google.signDelivery({ audience: url, idToken: true });
    expect((await adapter.receive(makeDelivery(event, token), byUrl)).items).toHaveLength(1);
    const someoneElse = await google.signDelivery({ audience: url, idToken: true, email: 'intruder@example.com' });
    expect((await refusal(adapter.receive(makeDelivery(event, someoneElse), byUrl))).status).toBe(401);
    // Chat's own JWT for a URL audience, or an ID token for a project number, is the wrong kind.
    const chatJwt = await google.signDelivery({ audience: url });
    expect((await refusal(adapter.receive(makeDelivery(event, chatJwt), byUrl))).status).toBe(401);
    const idToken = await google.signDelivery({ audience: PROJECT_NUMBER, idToken: true });
    expect((await refusal(adapter.receive(makeDelivery(event, idToken), integration))).status).toBe(401);
  });

  it('refuses an unsigned, forged, foreign, stale or otherwise-issued delivery with 401', async () => {
    const event = chatMessageEvent('hi');
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      undefined,
      'Basic abc',
      'Bearer not-a-jwt',
      await google.signDelivery({ audience: PROJECT_NUMBER, foreignKey: true }),
      await google.signDelivery({ audience: '999999999999' }),
      await google.signDelivery({ audience: PROJECT_NUMBER, issuer: 'someone@example.iam.gserviceaccount.com' }),
      await google.signDelivery({ audience: PROJECT_NUMBER, issuedAt: now - 7200, lifetimeSeconds: 3600 }),
    ];
    for (const authorization of bad) {
      expect(await refusal(adapter.receive(makeDelivery(event, authorization), integration))).toMatchObject({
        status: 401,
      });
    }
  });

  it('refuses a token that has expired by the time the delivery arrives', async () => {
    const token = await signed();
    const event = chatMessageEvent('hi');
    expect((await adapter.receive(makeDelivery(event, token), integration)).items).toHaveLength(1);
    const anHourAndTwoMinutesLater = Date.now() + 3600_000 + 120_000;
    const stale = await refusal(adapter.receive(makeDelivery(event, token, anHourAndTwoMinutesLater), integration));
    expect(stale.status).toBe(401);
  });

  it('answers a signed body it cannot read with a 4xx, never a 500', async () => {
    const token = await signed();
    const nul = chatMessageEvent('a\u0000b');
    const surrogate = chatMessageEvent('a\uD800b');
    const traversal = chatMessageEvent('hi', { space: 'spaces/../../v1/other' });
    const huge = chatMessageEvent('x'.repeat(70_000));
    const noInterrupt = {
      ...chatCardClickEvent('i', 'approve'),
      action: { actionMethodName: 'agentplane.approval' },
      common: {},
    };
    const cases: [unknown, number][] = [
      ['{not json', 400],
      [[1, 2], 400],
      [{ type: 'MESSAGE' }, 400],
      [nul, 422],
      [surrogate, 422],
      [traversal, 400],
      [huge, 400],
      [noInterrupt, 400],
    ];
    for (const [body, status] of cases) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      expect((await refusal(adapter.receive(makeDelivery(raw, token), integration))).status).toBe(status);
    }
  });

  it("answers 503 while Google's keys cannot be read, so the caller is not told its token is bad", async () => {
    const dead = await startFakeGoogleChatApi();
    const settings = dead.settings(500);
    await dead.close();
    const blind = createGoogleChatAdapter(settings);
    const error = await refusal(blind.receive(makeDelivery(chatMessageEvent('hi'), await signed()), integration));
    expect(error.status).toBe(503);
  });
});
