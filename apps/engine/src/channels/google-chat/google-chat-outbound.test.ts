import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { type FakeGoogleChatApi, startFakeGoogleChatApi } from '../../testing/fake-google-chat-api.js';
import { chatCardClickEvent } from '../../testing/google-chat-events.js';
import { ChannelApiError, type ChannelOutbound, type IntegrationOf } from '../channel-adapter.js';
import { CHAT_EDIT_INTERVAL_MS, CHAT_TEXT_LIMIT, createGoogleChatAdapter } from './google-chat-adapter.js';
import { makeDelivery, makeGoogleChatIntegration, PROJECT_NUMBER } from './google-chat-test-fixtures.js';

let google: FakeGoogleChatApi;
let integration: IntegrationOf<'GOOGLE_CHAT'>;
let outbound: ChannelOutbound;
const signal = new AbortController().signal;
const inThread = { space: 'spaces/AAAA', thread: 'spaces/AAAA/threads/T1' };

beforeAll(async () => {
  google = await startFakeGoogleChatApi();
  integration = await makeGoogleChatIntegration(google);
});
beforeEach(() => {
  // A new adapter per test: no access token cached from the one before.
  outbound = createGoogleChatAdapter(google.settings(1000)).outbound(integration);
  google.calls.length = 0;
});
afterAll(() => google.close());

async function apiError(promise: Promise<unknown>): Promise<ChannelApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ChannelApiError)) throw new Error(`expected a ChannelApiError, got ${String(error)}`);
  return error;
}

describe('Google Chat replies', () => {
  it("posts in the delivery's thread as the service account, reusing one access token", async () => {
    const before = google.tokenRequests;
    const first = await outbound.post(inThread, 'one', signal);
    const second = await outbound.post({ space: 'spaces/AAAA' }, 'two', signal);
    expect(google.tokenRequests - before).toBe(1);
    expect(google.messages.get(first)).toBe('one');
    expect(google.messages.get(second)).toBe('two');
    expect(google.calls.map(({ method, path, query, body }) => ({ method, path, query, body }))).toEqual([
      {
        method: 'POST',
        path: '/v1/spaces/AAAA/messages',
        query: { messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD' },
        body: { text: 'one', thread: { name: 'spaces/AAAA/threads/T1' } },
      },
      { method: 'POST', path: '/v1/spaces/AAAA/messages', query: {}, body: { text: 'two' } },
    ]);
  });

  it('streams by replacing the text of the message it posted, within the per-space write limit', async () => {
    expect(outbound.editIntervalMs).toBe(CHAT_EDIT_INTERVAL_MS);
    expect(CHAT_EDIT_INTERVAL_MS).toBeGreaterThanOrEqual(1000);
    const name = await outbound.post(inThread, 'Hel', signal);
    await outbound.edit?.(inThread, name, 'Hello, world', signal);
    expect(google.messages.get(name)).toBe('Hello, world');
    expect(google.calls[1]).toMatchObject({ method: 'PATCH', path: `/v1/${name}`, query: { updateMask: 'text' } });
  });

  it('asks for approval with Approve and Reject buttons whose presses read back as the decision', async () => {
    const request = {
      interruptId: 'int-7',
      toolName: 'send_money',
      prompt: 'Send <b>100</b> € to Bob?',
      requester: 'users/111',
    };
    await outbound.askApproval?.(inThread, request, signal);
    const body = google.calls[0]?.body ?? {};
    expect(body.text).toContain('<users/111>');
    const card = JSON.stringify(body.cardsV2);
    expect(card).toContain('Send &lt;b&gt;100&lt;/b&gt; € to Bob?');
    const buttons = (
      body.cardsV2 as { card: { sections: { widgets: { buttonList?: { buttons: unknown[] } }[] }[] } }[]
    )[0]?.card.sections[0]?.widgets[1]?.buttonList?.buttons as {
      text: string;
      onClick: { action: { function: string; parameters: { key: string; value: string }[] } };
    }[];
    expect(buttons.map((button) => button.text)).toEqual(['Approve', 'Reject']);
    // What Chat sends back when a button is pressed is what the adapter reads as the decision.
    const adapter = createGoogleChatAdapter(google.settings());
    for (const [index, approved] of [
      [0, true],
      [1, false],
    ] as const) {
      const action = buttons[index]?.onClick.action;
      const event = {
        ...chatCardClickEvent('ignored', 'approve'),
        action: { actionMethodName: action?.function, parameters: action?.parameters },
        common: {},
      };
      const { items } = await adapter.receive(
        makeDelivery(event, await google.signDelivery({ audience: PROJECT_NUMBER })),
        integration,
      );
      expect(items[0]).toMatchObject({ kind: 'approval', interruptId: 'int-7', approved });
    }
  });

  it('says a 429 is retryable and how long Google asked to wait', async () => {
    google.script({ status: 429, headers: { 'Retry-After': '7' } });
    const error = await apiError(outbound.post(inThread, 'hi', signal));
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000, providerCode: 'SCRIPTED' });
  });

  it('retries 5xx and timeouts, not a refused request', async () => {
    google.script({ status: 503 });
    expect(await apiError(outbound.post(inThread, 'hi', signal))).toMatchObject({ retryable: true, status: 503 });
    google.script({ status: 400 }, { status: 403 }, { status: 404 });
    for (const status of [400, 403, 404]) {
      expect(await apiError(outbound.post(inThread, 'hi', signal))).toMatchObject({ retryable: false, status });
    }
    let release = () => {};
    google.script({ status: 200, gate: new Promise<void>((resolve) => (release = resolve)) });
    const timedOut = await apiError(outbound.post(inThread, 'hi', signal));
    release();
    expect(timedOut).toMatchObject({ retryable: true, status: undefined });
    expect(timedOut.message).toContain('no answer within 1000 ms');
  });

  it('drops a token the Chat API refuses, so the retry asks for a new one', async () => {
    await outbound.post(inThread, 'one', signal);
    google.revokeTokens();
    const before = google.tokenRequests;
    expect(await apiError(outbound.post(inThread, 'two', signal))).toMatchObject({ retryable: true, status: 401 });
    await outbound.post(inThread, 'three', signal);
    expect(google.tokenRequests - before).toBe(1);
  });

  it('fails for good when the service account is unknown, its key unusable or the address has no space', async () => {
    const unknown = {
      ...integration,
      id: 'other',
      config: { ...integration.config, serviceAccountEmail: 'nobody@x.iam.gserviceaccount.com' },
    };
    const adapter = createGoogleChatAdapter(google.settings());
    expect(await apiError(adapter.outbound(unknown).post(inThread, 'hi', signal))).toMatchObject({
      retryable: false,
      status: 400,
      providerCode: 'invalid_grant',
    });
    const badKey = {
      ...integration,
      id: 'bad-key',
      config: {
        ...integration.config,
        serviceAccountPrivateKey: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
      },
    };
    expect(await apiError(adapter.outbound(badKey).post(inThread, 'hi', signal))).toMatchObject({ retryable: false });
    expect(await apiError(outbound.post({ space: 'spaces/../x' }, 'hi', signal))).toMatchObject({ retryable: false });
    expect(
      await apiError(outbound.edit?.(inThread, 'spaces/A/messages/../../x', 'hi', signal) ?? Promise.resolve()),
    ).toMatchObject({ retryable: false });
  });

  it("keeps to Chat's 4096-character text limit", () => {
    expect(outbound.maxLength).toBe(CHAT_TEXT_LIMIT);
    expect(CHAT_TEXT_LIMIT).toBe(4096);
  });
});
