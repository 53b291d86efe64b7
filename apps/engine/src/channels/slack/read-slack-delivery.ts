// Reads a verified Slack request into what the queue stores: the Events API's url_verification
// handshake (answered with its challenge), a person's message (event_callback with a message or
// app_mention event), or a press of one of our approval buttons (block_actions, form-encoded).
// Everything else Slack sends is acknowledged and ignored, so Slack does not retry it.
import { formatZodIssues, JSON_MAX_DEPTH } from '@agentplane/contracts';
import { AppError, refuseUnstorableBody } from '@agentplane/server-kit';
import type { z } from 'zod';
import type { InboundAttachment, InboundItem, ReceivedDelivery, ReplyAddress } from '../channel-adapter.js';
import { APPROVE_ACTION_ID, REJECT_ACTION_ID, readButtonValue } from './approval-blocks.js';
import {
  type TSlackBlockActions,
  type TSlackMessageEvent,
  ZSlackBlockActions,
  ZSlackEnvelope,
  ZSlackEventCallback,
  ZSlackMessageEvent,
  ZSlackUrlVerification,
} from './slack-payloads.js';

const ACKNOWLEDGED: ReceivedDelivery = { answer: { status: 200, contentType: 'text/plain', body: '' }, items: [] };

// A message a person wrote: plain, with files, or a thread reply also sent to the channel. Other
// subtypes are edits, deletions, joins and bots' posts, which need no answer.
const PEOPLE_SUBTYPES = new Set(['file_share', 'thread_broadcast']);

/** The body's JSON: the Events API posts it as is, interactivity as the `payload` field of a form. */
function readJson(rawBody: Buffer, contentType: string | undefined): unknown {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  let text: string | null;
  if (mediaType === 'application/json') text = rawBody.toString('utf8');
  else if (mediaType === 'application/x-www-form-urlencoded') {
    text = new URLSearchParams(rawBody.toString('utf8')).get('payload');
    if (text === null) throw new AppError('bad_request', 'The form has no payload field.');
  } else {
    throw new AppError('unsupported_media_type', 'Slack requests are application/json or a form with a payload.');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AppError('bad_request', 'The body is not valid JSON.');
  }
  // Signed or not, a text or id PostgreSQL cannot store is refused before it is queued.
  refuseUnstorableBody(json, { maxDepth: JSON_MAX_DEPTH });
  return json;
}

function parse<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new AppError('bad_request', `The body is not a Slack ${what}.`, { errors: formatZodIssues(parsed.error) });
  }
  return parsed.data;
}

/**
 * Each Slack thread is one conversation of ours, and so is a direct message's main timeline (a DM
 * reads as a chat, not as a thread per message). Replies go where the conversation is.
 */
function placeOf(channel: string, threadTs: string | undefined): { conversation: string; address: ReplyAddress } {
  if (threadTs === undefined) return { conversation: channel, address: { channel } };
  return { conversation: `${channel}:${threadTs}`, address: { channel, thread_ts: threadTs } };
}

function attachmentKind(mimeType: string | undefined): InboundAttachment['kind'] {
  const family = mimeType?.split('/')[0];
  return family === 'image' || family === 'audio' || family === 'video' ? family : 'file';
}

function readMessage(event: TSlackMessageEvent): InboundItem | undefined {
  // Our own replies come back as events too: anything a bot posted is not answered.
  if (event.bot_id !== undefined || event.user === undefined) return undefined;
  if (event.subtype !== undefined && !PEOPLE_SUBTYPES.has(event.subtype)) return undefined;
  // A message in a channel is answered in its thread, which it starts when it is not in one already.
  const threadTs = event.thread_ts ?? (event.channel_type === 'im' ? undefined : event.ts);
  return {
    kind: 'message',
    // The message itself, not the event: a mention the app also receives as a `message` event (when
    // subscribed to both) is one message, answered once; Slack's retries repeat the same ts too.
    providerMessageId: `message:${event.channel}:${event.ts}`,
    sender: event.user,
    ...placeOf(event.channel, threadTs),
    text: event.text === undefined || event.text.trim() === '' ? undefined : event.text,
    attachments: (event.files ?? []).map((file) => ({
      kind: attachmentKind(file.mimetype),
      ref: file.id,
      ...(file.name === undefined ? {} : { name: file.name }),
      ...(file.mimetype === undefined ? {} : { mimeType: file.mimetype }),
    })),
  };
}

function readApproval(payload: TSlackBlockActions): InboundItem | undefined {
  const action = payload.actions.find(
    ({ action_id }) => action_id === APPROVE_ACTION_ID || action_id === REJECT_ACTION_ID,
  );
  if (action === undefined) return undefined;
  const decision = readButtonValue(action.value);
  if (decision === undefined) throw new AppError('bad_request', 'The button value is not an approval decision.');
  const channel = payload.container.channel_id ?? payload.channel?.id;
  if (channel === undefined) throw new AppError('bad_request', 'The button press names no channel.');
  return {
    kind: 'approval',
    providerMessageId: `action:${payload.trigger_id}`,
    sender: payload.user.id,
    // The approval message was posted where the run's conversation is, so its thread names it.
    ...placeOf(channel, payload.message?.thread_ts ?? payload.container.thread_ts),
    interruptId: decision.interruptId,
    approved: decision.approved,
  };
}

const withItem = (item: InboundItem | undefined): ReceivedDelivery => ({
  ...ACKNOWLEDGED,
  items: item === undefined ? [] : [item],
});

/** Reads a request whose signature has been checked; `appId` is the integration's Slack app. */
export function readSlackDelivery(rawBody: Buffer, contentType: string | undefined, appId: string): ReceivedDelivery {
  const json = readJson(rawBody, contentType);
  const envelope = parse(ZSlackEnvelope, json, 'request');
  if (envelope.type === 'url_verification') {
    const { challenge } = parse(ZSlackUrlVerification, json, 'url_verification request');
    return { answer: { status: 200, contentType: 'application/json', body: JSON.stringify({ challenge }) }, items: [] };
  }
  // Signed with this app's secret yet for another app: a misconfigured integration, never queued.
  if (envelope.api_app_id !== undefined && envelope.api_app_id !== appId) {
    throw new AppError('forbidden', "The request is for another Slack app than the integration's appId.");
  }
  if (envelope.type === 'event_callback') {
    const { event } = parse(ZSlackEventCallback, json, 'event_callback');
    if (event.type !== 'message' && event.type !== 'app_mention') return ACKNOWLEDGED;
    return withItem(readMessage(parse(ZSlackMessageEvent, event, `${event.type} event`)));
  }
  if (envelope.type === 'block_actions')
    return withItem(readApproval(parse(ZSlackBlockActions, json, 'block_actions payload')));
  return ACKNOWLEDGED;
}
