// Reads a Google Chat interaction event (the HTTP endpoint's JSON, already authenticated) into inbound
// items. A MESSAGE (or the message an ADDED_TO_SPACE carries) is one message, de-duplicated by its
// resource name; a press of one of our approval buttons (CARD_CLICKED) is one approval; everything else
// (a bare ADDED_TO_SPACE, REMOVED_FROM_SPACE, other apps' cards, messages from bots) gives none.
//
// Names are checked against their documented shapes (chat-resource-names.ts) before they are stored
// as a reply address.
import { AppError, refuseUnstorableBody } from '@agentplane/server-kit';
import { z } from 'zod';
import type { InboundAttachment, InboundItem, ReplyAddress } from '../channel-adapter.js';
import { APPROVAL_FUNCTION, DECISION_PARAMETER, INTERRUPT_ID_PARAMETER } from './approval-card.js';
import { ZMessageName, ZSpaceName, ZThreadName, ZUserName } from './chat-resource-names.js';

const ZText = z.string().max(65_536);
// Deeper than any event Chat sends; a body nested past it is refused before it is walked.
const EVENT_MAX_DEPTH = 32;

const ZUser = z.looseObject({ name: ZUserName, type: z.string().max(64).optional() });

const ZAttachment = z.looseObject({
  name: z.string().max(512).optional(),
  contentName: ZText.optional(),
  contentType: z.string().max(255).optional(),
  downloadUri: z.string().max(4096).optional(),
  attachmentDataRef: z.looseObject({ resourceName: z.string().max(4096).optional() }).optional(),
  driveDataRef: z.looseObject({ driveFileId: z.string().max(512).optional() }).optional(),
});

const ZSpace = z.looseObject({
  name: ZSpaceName,
  type: z.string().max(64).optional(),
  spaceType: z.string().max(64).optional(),
  spaceThreadingState: z.string().max(64).optional(),
});

const ZMessage = z.looseObject({
  name: ZMessageName,
  sender: ZUser.optional(),
  text: ZText.optional(),
  argumentText: ZText.optional(),
  thread: z.looseObject({ name: ZThreadName }).optional(),
  attachment: z.array(ZAttachment).max(100).optional(),
});

const ZParameter = z.looseObject({ key: z.string().max(256), value: z.string().max(1024) });

const ZChatEvent = z.looseObject({
  type: z.string().max(64),
  eventTime: z.string().max(64).optional(),
  space: ZSpace.optional(),
  user: ZUser.optional(),
  message: ZMessage.optional(),
  action: z
    .looseObject({
      actionMethodName: z.string().max(256).optional(),
      parameters: z.array(ZParameter).max(50).optional(),
    })
    .optional(),
  common: z
    .looseObject({
      invokedFunction: z.string().max(256).optional(),
      parameters: z.record(z.string().max(256), z.string().max(1024)).optional(),
    })
    .optional(),
});
type ChatEvent = z.infer<typeof ZChatEvent>;
type ChatSpace = z.infer<typeof ZSpace>;
type ChatMessage = z.infer<typeof ZMessage>;

const malformed = (detail: string) =>
  new AppError('bad_request', `Not a Google Chat event this app can read: ${detail}`);

function parseEvent(rawBody: Buffer): ChatEvent {
  let json: unknown;
  try {
    json = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw malformed('the body is not JSON.');
  }
  // NUL and lone surrogates (which PostgreSQL cannot store) are a 422, whichever field holds them.
  refuseUnstorableBody(json, { maxDepth: EVENT_MAX_DEPTH });
  const parsed = ZChatEvent.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw malformed(`${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/**
 * One conversation of ours per thread where the space has threads; a direct message or an unthreaded
 * space is one conversation, since each of its messages may come with a thread of its own.
 */
function conversationOf(space: ChatSpace, message: ChatMessage): string {
  const oneStream =
    space.type === 'DM' || space.spaceType === 'DIRECT_MESSAGE' || space.spaceThreadingState === 'UNTHREADED_MESSAGES';
  return oneStream || message.thread === undefined ? space.name : message.thread.name;
}

function addressOf(space: ChatSpace, message: ChatMessage): ReplyAddress {
  return message.thread === undefined ? { space: space.name } : { space: space.name, thread: message.thread.name };
}

function attachmentKind(contentType: string | undefined): InboundAttachment['kind'] {
  const family = contentType?.split('/')[0];
  if (family === 'image' || family === 'audio' || family === 'video') return family;
  return contentType === undefined ? 'other' : 'file';
}

function attachmentsOf(message: ChatMessage): InboundAttachment[] {
  return (message.attachment ?? []).flatMap((attachment) => {
    const ref = attachment.attachmentDataRef?.resourceName ?? attachment.driveDataRef?.driveFileId ?? attachment.name;
    if (ref === undefined) return [];
    return [
      {
        kind: attachmentKind(attachment.contentType),
        ref,
        ...(attachment.contentName === undefined ? {} : { name: attachment.contentName }),
        ...(attachment.contentType === undefined ? {} : { mimeType: attachment.contentType }),
      },
    ];
  });
}

function readMessage(event: ChatEvent): InboundItem[] {
  const { space, message } = event;
  if (space === undefined || message === undefined) throw malformed('a MESSAGE event names its space and message.');
  const sender = message.sender ?? event.user;
  if (sender === undefined) throw malformed('a MESSAGE event names its sender.');
  if (sender.type === 'BOT') return [];
  // argumentText is the text without the app's @mention, which the agent need not read.
  const text = (message.argumentText ?? message.text ?? '').trim();
  return [
    {
      kind: 'message',
      providerMessageId: message.name,
      conversation: conversationOf(space, message),
      sender: sender.name,
      address: addressOf(space, message),
      text: text === '' ? undefined : text,
      attachments: attachmentsOf(message),
    },
  ];
}

/** The pressed button's function and parameters, from the legacy `action` or the newer `common`. */
function clickedAction(event: ChatEvent): {
  method: string | undefined;
  parameter: (key: string) => string | undefined;
} {
  const listed = event.action?.parameters ?? [];
  return {
    method: event.action?.actionMethodName ?? event.common?.invokedFunction,
    parameter: (key) => listed.find((parameter) => parameter.key === key)?.value ?? event.common?.parameters?.[key],
  };
}

function readClick(event: ChatEvent): InboundItem[] {
  const { method, parameter } = clickedAction(event);
  if (method !== APPROVAL_FUNCTION) return [];
  const { space, message, user } = event;
  if (space === undefined || message === undefined || user === undefined || event.eventTime === undefined) {
    throw malformed('a CARD_CLICKED event names its space, message, user and time.');
  }
  const interruptId = parameter(INTERRUPT_ID_PARAMETER);
  const decision = parameter(DECISION_PARAMETER);
  if (interruptId === undefined || (decision !== 'approve' && decision !== 'reject')) {
    throw malformed('the approval button carries no interrupt id or decision.');
  }
  return [
    {
      kind: 'approval',
      // A click has no id of its own: who pressed what, when, is one press however often it is delivered.
      providerMessageId: `click:${message.name}:${user.name}:${event.eventTime}:${decision}`,
      conversation: conversationOf(space, message),
      sender: user.name,
      address: addressOf(space, message),
      interruptId,
      approved: decision === 'approve',
    },
  ];
}

export function readChatEvent(rawBody: Buffer): InboundItem[] {
  const event = parseEvent(rawBody);
  if (event.type === 'MESSAGE') return readMessage(event);
  // Someone who adds the app by @mentioning it in a space sends their message with the event.
  if (event.type === 'ADDED_TO_SPACE' && event.message !== undefined) return readMessage(event);
  if (event.type === 'CARD_CLICKED') return readClick(event);
  return [];
}
