// What Slack sends an app, for tests: Events API and interactivity bodies, signed the way Slack signs
// them (v0: HMAC-SHA256 of `v0:{timestamp}:{body}` under the signing secret, by node:crypto, the
// primitive @slack/bolt's verifier computes it with).
import { createHmac, randomUUID } from 'node:crypto';

export type SlackRequest = { body: string; contentType: string };

export function signSlackRequest(
  body: string,
  signingSecret: string,
  timestampS = Math.floor(Date.now() / 1000),
): { 'x-slack-request-timestamp': string; 'x-slack-signature': string } {
  const digest = createHmac('sha256', signingSecret).update(`v0:${timestampS}:${body}`).digest('hex');
  return { 'x-slack-request-timestamp': String(timestampS), 'x-slack-signature': `v0=${digest}` };
}

export function urlVerificationRequest(challenge: string): SlackRequest {
  return {
    body: JSON.stringify({ token: 'deprecated-verification-token', challenge, type: 'url_verification' }),
    contentType: 'application/json',
  };
}

let lastTs = 1_700_000_000_000_000;
/** A fresh Slack message timestamp, as `1700000000.000001`: unique in the test process, posted or received. */
export function nextSlackTs(): string {
  lastTs++;
  return `${Math.floor(lastTs / 1e6)}.${String(lastTs % 1e6).padStart(6, '0')}`;
}

export type SlackMessageEventOptions = {
  appId: string;
  channel?: string;
  user?: string;
  text?: string;
  ts?: string;
  threadTs?: string;
  channelType?: 'channel' | 'im' | 'group';
  eventType?: 'message' | 'app_mention';
  eventId?: string;
  /** Fields the event carries besides these: bot_id, subtype, files, … */
  extra?: Record<string, unknown>;
};

/** An event_callback with a `message` (or `app_mention`) event from a person. */
export function messageEventRequest(options: SlackMessageEventOptions): SlackRequest {
  const channelType = options.channelType ?? 'channel';
  const event = {
    type: options.eventType ?? 'message',
    channel: options.channel ?? (channelType === 'im' ? 'D0000000001' : 'C0000000001'),
    channel_type: channelType,
    user: options.user ?? 'U0000000001',
    text: options.text ?? 'hello',
    ts: options.ts ?? nextSlackTs(),
    ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    ...options.extra,
  };
  return {
    body: JSON.stringify({
      token: 'deprecated-verification-token',
      team_id: 'T0000000001',
      api_app_id: options.appId,
      event,
      type: 'event_callback',
      event_id: options.eventId ?? `Ev${randomUUID().replaceAll('-', '').slice(0, 10).toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
    }),
    contentType: 'application/json',
  };
}

export type BlockActionsOptions = {
  appId: string;
  user?: string;
  channel?: string;
  /** The ts of the message holding the button, and its thread's. */
  messageTs?: string;
  threadTs?: string;
  actionId: string;
  value: string;
  triggerId?: string;
};

/** An interactivity request for a button press: a form whose `payload` is the block_actions JSON. */
export function blockActionsRequest(options: BlockActionsOptions): SlackRequest {
  const channel = options.channel ?? 'C0000000001';
  const messageTs = options.messageTs ?? nextSlackTs();
  const payload = {
    type: 'block_actions',
    api_app_id: options.appId,
    team: { id: 'T0000000001' },
    user: { id: options.user ?? 'U0000000001' },
    trigger_id: options.triggerId ?? `${Date.now()}.${randomUUID()}`,
    container: {
      type: 'message',
      message_ts: messageTs,
      channel_id: channel,
      ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }),
    },
    channel: { id: channel },
    message: { ts: messageTs, ...(options.threadTs === undefined ? {} : { thread_ts: options.threadTs }) },
    actions: [
      { type: 'button', action_id: options.actionId, block_id: 'b1', value: options.value, action_ts: nextSlackTs() },
    ],
  };
  return {
    body: new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    contentType: 'application/x-www-form-urlencoded',
  };
}

export type PostOptions = {
  /** Signs the request with this secret; without it (and without `headers`) it goes unsigned. */
  signingSecret?: string;
  /** When it was signed, in seconds: now unless given (a stale or future one for refusals). */
  timestampS?: number;
  /** Headers that replace the signature, for forged or partial ones. */
  headers?: Record<string, string>;
};

/** POSTs a request to an integration's webhook as Slack does. */
export function postSlackRequest(url: string, request: SlackRequest, options: PostOptions = {}): Promise<Response> {
  const signature =
    options.signingSecret === undefined
      ? {}
      : signSlackRequest(request.body, options.signingSecret, options.timestampS);
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': request.contentType, ...signature, ...options.headers },
    body: request.body,
  });
}
