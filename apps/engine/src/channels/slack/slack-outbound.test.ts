import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeSlackApi, startFakeSlackApi } from '../../testing/fake-slack-api.js';
import { hold } from '../../testing/gate.js';
import { holdRefusingPort } from '../../testing/refusing-port.js';
import { blockActionsRequest, signSlackRequest } from '../../testing/slack-deliveries.js';
import { ChannelApiError, type ChannelOutbound, type IntegrationOf } from '../channel-adapter.js';
import { createSlackAdapter } from './slack-adapter.js';
import { SLACK_EDIT_INTERVAL_MS } from './slack-outbound.js';

const botToken = `xoxb-${randomUUID()}`;
const appId = 'A0APPTEST01';
let slack: FakeSlackApi;
let outbound: ChannelOutbound;
let adapter: ReturnType<typeof createSlackAdapter>;
const integration = (token = botToken): IntegrationOf<'SLACK'> => ({
  id: randomUUID(),
  provider: 'SLACK',
  enabled: true,
  config: { botToken: token, signingSecret: 'signing-secret', appId },
});
const thread = { channel: 'C0CHAN00001', thread_ts: '1700000000.000100' };
const live = () => new AbortController().signal;

beforeAll(async () => {
  slack = await startFakeSlackApi({ botToken });
  adapter = createSlackAdapter({ apiBaseUrl: slack.baseUrl, apiTimeoutMs: 30_000 });
  outbound = adapter.outbound(integration());
});

afterAll(async () => {
  await slack.close();
});

async function failure(promise: Promise<unknown>): Promise<ChannelApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ChannelApiError)) throw new Error(`expected a ChannelApiError, got ${String(error)}`);
  return error;
}

describe('replies through the Web API', () => {
  it('posts in the thread with the bot token, then edits that message as the reply streams', async () => {
    const ts = await outbound.post(thread, 'first words', live());
    await outbound.edit?.(thread, ts, 'first words and more', live());
    expect(slack.messages().find((message) => message.ts === ts)).toEqual({
      channel: 'C0CHAN00001',
      ts,
      threadTs: thread.thread_ts,
      text: 'first words and more',
      blocks: undefined,
    });
    const [post, update] = slack.delivered.slice(-2);
    expect(post).toMatchObject({ method: 'chat.postMessage', authorization: `Bearer ${botToken}` });
    expect(update).toMatchObject({ method: 'chat.update', args: { channel: 'C0CHAN00001', ts } });
    expect(outbound.editIntervalMs).toBe(SLACK_EDIT_INTERVAL_MS);
    expect(outbound.maxLength).toBe(4000);
  });

  it('posts in a direct message timeline, without a thread', async () => {
    const ts = await outbound.post({ channel: 'D0DIRECT001' }, 'hi', live());
    expect(slack.messages().find((message) => message.ts === ts)?.threadTs).toBeUndefined();
  });

  it('asks for approval with buttons whose press reads back as the decision on the interrupt', async () => {
    const request = {
      interruptId: 'interrupt-7',
      toolName: 'refund',
      prompt: 'Refund <order> 42?',
      requester: 'U0ALICE0001',
    };
    const ts = await outbound.askApproval?.(thread, request, live());
    const posted = slack.messages().find((message) => message.ts === ts);
    expect(posted?.text).toBe('Approval needed: Refund &lt;order&gt; 42?');
    const blocks = posted?.blocks as {
      type: string;
      elements?: { action_id?: string; value?: string; text?: string }[];
    }[];
    expect(blocks[1]?.elements?.[0]?.text).toBe('Only <@U0ALICE0001> can approve or reject this.');
    const buttons = blocks.find((block) => block.type === 'actions')?.elements ?? [];
    const decisions = [];
    for (const { action_id = '', value = '' } of buttons) {
      const press = blockActionsRequest({
        appId,
        actionId: action_id,
        value,
        channel: thread.channel,
        messageTs: ts,
        threadTs: thread.thread_ts,
      });
      const headers: Record<string, string> = {
        'content-type': press.contentType,
        ...signSlackRequest(press.body, 'signing-secret'),
      };
      const { items } = await adapter.receive(
        { rawBody: Buffer.from(press.body), header: (name) => headers[name], url: 'http://engine/x', now: Date.now() },
        integration(),
      );
      decisions.push(items[0]);
    }
    expect(decisions).toEqual([
      expect.objectContaining({
        kind: 'approval',
        interruptId: 'interrupt-7',
        approved: true,
        conversation: `C0CHAN00001:${thread.thread_ts}`,
      }),
      expect.objectContaining({ kind: 'approval', interruptId: 'interrupt-7', approved: false }),
    ]);
  });
});

describe('failures', () => {
  it('a 429 is retryable after its Retry-After, and the client does not retry it by itself', async () => {
    slack.script('chat.update', { status: 429, headers: { 'Retry-After': '7' } });
    const before = slack.calls.length;
    const error = await failure(outbound.edit?.(thread, '1700000000.000001', 'x', live()) ?? Promise.resolve());
    expect(error).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000 });
    expect(slack.calls.length - before).toBe(1);
  });

  it('a 5xx is retryable; a wrong token or an unknown message is not', async () => {
    slack.script('chat.postMessage', { status: 503, headers: { 'Retry-After': '3' } });
    expect(await failure(outbound.post(thread, 'x', live()))).toMatchObject({
      retryable: true,
      status: 503,
      retryAfterMs: 3000,
    });
    const wrongToken = adapter.outbound(integration('xoxb-wrong'));
    expect(await failure(wrongToken.post(thread, 'x', live()))).toMatchObject({
      retryable: false,
      providerCode: 'invalid_auth',
    });
    expect(await failure(outbound.edit?.(thread, '1.2', 'x', live()) ?? Promise.resolve())).toMatchObject({
      retryable: false,
      providerCode: 'message_not_found',
    });
    slack.script('chat.postMessage', { status: 200, error: 'internal_error' });
    expect(await failure(outbound.post(thread, 'x', live()))).toMatchObject({
      retryable: true,
      providerCode: 'internal_error',
    });
  });

  it('a call without an answer in time, or to nowhere, is retryable', async () => {
    const held = hold();
    const quick = createSlackAdapter({ apiBaseUrl: slack.baseUrl, apiTimeoutMs: 200 }).outbound(integration());
    slack.script('chat.postMessage', { status: 200, gate: held.gate });
    const timedOut = await failure(quick.post(thread, 'x', live()));
    held.release();
    expect(timedOut).toMatchObject({ retryable: true, status: undefined, message: 'no answer within 200 ms' });
    const refusing = await holdRefusingPort();
    try {
      const nowhere = createSlackAdapter({ apiBaseUrl: `${refusing.origin}/api/`, apiTimeoutMs: 30_000 }).outbound(
        integration(),
      );
      expect(await failure(nowhere.post(thread, 'x', live()))).toMatchObject({
        retryable: true,
        message: 'unreachable',
      });
    } finally {
      await refusing.release();
    }
  });

  it("the caller's abort ends the call with the abort itself, not as Slack's failure", async () => {
    const held = hold();
    slack.script('chat.postMessage', { status: 200, gate: held.gate });
    const controller = new AbortController();
    const posting = outbound.post(thread, 'x', controller.signal).catch((error: unknown) => error);
    const reason = new Error('lease lost');
    controller.abort(reason);
    expect(await posting).toBe(reason);
    held.release();
  });
});
