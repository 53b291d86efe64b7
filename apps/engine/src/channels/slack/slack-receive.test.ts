import { randomUUID } from 'node:crypto';
import { AppError } from '@agentplane/server-kit';
import { describe, expect, it } from '@jest/globals';
import {
  blockActionsRequest,
  messageEventRequest,
  nextSlackTs,
  type SlackRequest,
  signSlackRequest,
  urlVerificationRequest,
} from '../../testing/slack-deliveries.js';
import type { IntegrationOf, ReceivedDelivery } from '../channel-adapter.js';
import { APPROVE_ACTION_ID, approvalBlocks, REJECT_ACTION_ID } from './approval-blocks.js';
import { createSlackAdapter } from './slack-adapter.js';

const adapter = createSlackAdapter({ apiBaseUrl: 'http://127.0.0.1:9/api/', apiTimeoutMs: 1000 });
const appId = 'A0APPTEST01';
const integration: IntegrationOf<'SLACK'> = {
  id: randomUUID(),
  provider: 'SLACK',
  enabled: true,
  config: { botToken: 'xoxb-test', signingSecret: `secret-${randomUUID()}`, appId },
};
const NOW = 1_800_000_000_000;

type Headers = Record<string, string | undefined>;

function receive(request: SlackRequest, headers: Headers = signed(request)): Promise<ReceivedDelivery> {
  const all: Headers = { 'content-type': request.contentType, ...headers };
  return adapter.receive(
    { rawBody: Buffer.from(request.body), header: (name) => all[name], url: 'http://engine/x', now: NOW },
    integration,
  );
}

function signed(request: SlackRequest, { secret = integration.config.signingSecret, at = NOW } = {}): Headers {
  return signSlackRequest(request.body, secret, Math.floor(at / 1000));
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; detail: string }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AppError)) throw new Error(`expected an AppError, got ${String(error)}`);
  return { status: error.status, detail: error.message };
}

const message = (options: Omit<Parameters<typeof messageEventRequest>[0], 'appId'> = {}) =>
  messageEventRequest({ appId, ...options });

describe('checking a request the way Slack signs it', () => {
  it('answers the url_verification handshake with its challenge once the signature holds', async () => {
    const received = await receive(
      urlVerificationRequest('challenge-3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P'),
    );
    expect(received).toEqual({
      answer: {
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ challenge: 'challenge-3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' }),
      },
      items: [],
    });
  });

  it('refuses an unsigned request, the handshake included, with a 401', async () => {
    expect((await refusal(receive(urlVerificationRequest('c'), {}))).status).toBe(401);
    const request = message();
    const { 'x-slack-request-timestamp': timestamp } = signed(request);
    expect((await refusal(receive(request, { 'x-slack-request-timestamp': timestamp }))).status).toBe(401);
  });

  it('refuses a signature under another secret, or of another body', async () => {
    const request = message();
    expect((await refusal(receive(request, signed(request, { secret: 'another-secret' })))).status).toBe(401);
    const tampered = { ...request, body: request.body.replace('hello', 'HELLO') };
    expect((await refusal(receive(tampered, signed(request)))).status).toBe(401);
    const v1 = signed(request);
    v1['x-slack-signature'] = v1['x-slack-signature']?.replace('v0=', 'v1=');
    expect((await refusal(receive(request, v1))).detail).toMatch(/unknown signature version/);
  });

  it('refuses a request signed more than five minutes before or after now (a replay)', async () => {
    const request = message();
    const stale = await refusal(receive(request, signed(request, { at: NOW - 5 * 60_000 - 1000 })));
    expect(stale).toEqual({ status: 401, detail: expect.stringMatching(/stale/) });
    const future = await refusal(receive(request, signed(request, { at: NOW + 5 * 60_000 + 1000 })));
    expect(future).toEqual({ status: 401, detail: expect.stringMatching(/future/) });
    expect((await receive(request, signed(request, { at: NOW - 4 * 60_000 }))).items).toHaveLength(1);
  });

  it('refuses a timestamp that is not Unix seconds', async () => {
    const request = message();
    for (const timestamp of ['', 'abc', '1e9', '-5', '17000000000000000']) {
      const headers = { ...signed(request), 'x-slack-request-timestamp': timestamp };
      expect((await refusal(receive(request, headers))).status).toBe(401);
    }
  });

  it('refuses a request signed for this app but naming another app with a 403', async () => {
    const request = messageEventRequest({ appId: 'A0OTHERAPP1' });
    expect((await refusal(receive(request))).status).toBe(403);
  });
});

describe('reading messages', () => {
  it('answers a channel message in the thread it starts, deduplicated by the message', async () => {
    const ts = nextSlackTs();
    const { answer, items } = await receive(
      message({ channel: 'C0CHAN00001', user: 'U0ALICE0001', text: 'hi *there*', ts }),
    );
    expect(answer.status).toBe(200);
    expect(items).toEqual([
      {
        kind: 'message',
        providerMessageId: `message:C0CHAN00001:${ts}`,
        sender: 'U0ALICE0001',
        conversation: `C0CHAN00001:${ts}`,
        address: { channel: 'C0CHAN00001', thread_ts: ts },
        text: 'hi *there*',
        attachments: [],
      },
    ]);
  });

  it('reads a reply in a thread into that thread, and a mention the same as the message event of it', async () => {
    const threadTs = nextSlackTs();
    const ts = nextSlackTs();
    const [reply] = (await receive(message({ ts, threadTs }))).items;
    expect(reply).toMatchObject({ conversation: `C0000000001:${threadTs}`, address: { thread_ts: threadTs } });
    const [mention] = (await receive(message({ ts, threadTs, eventType: 'app_mention' }))).items;
    expect(mention?.providerMessageId).toBe(reply?.providerMessageId);
  });

  it('keeps a direct message timeline as one conversation, answered in the timeline', async () => {
    const { items } = await receive(message({ channelType: 'im', channel: 'D0DIRECT001' }));
    expect(items[0]).toMatchObject({ conversation: 'D0DIRECT001', address: { channel: 'D0DIRECT001' } });
    expect(items[0]?.address).not.toHaveProperty('thread_ts');
  });

  it('ignores bots (its own replies among them), edits and deletions, and events it does not answer', async () => {
    for (const extra of [{ bot_id: 'B01' }, { subtype: 'message_changed' }, { subtype: 'message_deleted' }]) {
      expect(await receive(message({ extra }))).toEqual({
        answer: { status: 200, contentType: 'text/plain', body: '' },
        items: [],
      });
    }
    const reaction = JSON.stringify({
      type: 'event_callback',
      api_app_id: appId,
      event_id: 'Ev1',
      event: { type: 'reaction_added', user: 'U1', reaction: 'thumbsup' },
    });
    expect((await receive({ body: reaction, contentType: 'application/json' })).items).toEqual([]);
    const rateLimited = JSON.stringify({ type: 'app_rate_limited', api_app_id: appId, minute_rate_limited: 1 });
    expect((await receive({ body: rateLimited, contentType: 'application/json' })).items).toEqual([]);
  });

  it('keeps files as references, and a message of files alone has no text', async () => {
    const files = [
      { id: 'F0IMAGE0001', name: 'cat.png', mimetype: 'image/png', url_private: 'https://files.slack.com/x' },
      { id: 'F0DOC000001', name: 'notes.pdf', mimetype: 'application/pdf' },
    ];
    const [item] = (await receive(message({ text: '', extra: { subtype: 'file_share', files } }))).items;
    expect(item).toMatchObject({
      kind: 'message',
      text: undefined,
      attachments: [
        { kind: 'image', ref: 'F0IMAGE0001', name: 'cat.png', mimeType: 'image/png' },
        { kind: 'file', ref: 'F0DOC000001', name: 'notes.pdf', mimeType: 'application/pdf' },
      ],
    });
  });

  it('refuses bodies it cannot read: not JSON, not Slack, another media type, unstorable text', async () => {
    const json = (body: string) => ({ body, contentType: 'application/json' });
    expect((await refusal(receive(json('{')))).status).toBe(400);
    expect((await refusal(receive(json('[]')))).status).toBe(400);
    expect(await refusal(receive(json(JSON.stringify({ type: 'event_callback', api_app_id: appId }))))).toMatchObject({
      status: 400,
    });
    expect(await refusal(receive(message({ ts: 'yesterday' })))).toMatchObject({ status: 400 });
    expect(await refusal(receive({ body: 'x', contentType: 'text/plain' }))).toMatchObject({ status: 415 });
    expect(await refusal(receive(message({ text: 'nul \u0000 here' })))).toMatchObject({ status: 422 });
    expect(await refusal(receive(message({ text: 'lone \ud800 surrogate' })))).toMatchObject({ status: 422 });
    expect(await refusal(receive({ body: 'other=1', contentType: 'application/x-www-form-urlencoded' }))).toMatchObject(
      {
        status: 400,
      },
    );
  });
});

describe('reading button presses', () => {
  const [, , actions] = approvalBlocks({
    interruptId: 'int-1',
    toolName: 'pay',
    prompt: 'Pay 5 €?',
    requester: 'U0ALICE0001',
  });
  const buttons = (actions as { elements: { action_id: string; value: string }[] }).elements;

  it('reads a press of Approve or Reject into the decision, in the thread of the approval message', async () => {
    const threadTs = nextSlackTs();
    for (const { action_id, value } of buttons) {
      const request = blockActionsRequest({
        appId,
        actionId: action_id,
        value,
        user: 'U0ALICE0001',
        threadTs,
        triggerId: `t-${action_id}`,
      });
      const { answer, items } = await receive(request);
      expect(answer).toEqual({ status: 200, contentType: 'text/plain', body: '' });
      expect(items).toEqual([
        {
          kind: 'approval',
          providerMessageId: `action:t-${action_id}`,
          sender: 'U0ALICE0001',
          conversation: `C0000000001:${threadTs}`,
          address: { channel: 'C0000000001', thread_ts: threadTs },
          interruptId: 'int-1',
          approved: action_id === APPROVE_ACTION_ID,
        },
      ]);
    }
    expect(buttons.map(({ action_id }) => action_id)).toEqual([APPROVE_ACTION_ID, REJECT_ACTION_ID]);
  });

  it('ignores other buttons, and refuses a press of ours whose value it did not write, or for another app', async () => {
    const other = blockActionsRequest({ appId, actionId: 'someone_elses_button', value: 'x' });
    expect((await receive(other)).items).toEqual([]);
    const forged = blockActionsRequest({ appId, actionId: APPROVE_ACTION_ID, value: '{"interruptId":"i"}' });
    expect((await refusal(receive(forged))).status).toBe(400);
    const foreign = blockActionsRequest({
      appId: 'A0OTHERAPP1',
      actionId: APPROVE_ACTION_ID,
      value: buttons[0]?.value ?? '',
    });
    expect((await refusal(receive(foreign))).status).toBe(403);
  });
});
