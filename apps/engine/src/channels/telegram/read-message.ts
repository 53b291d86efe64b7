// A Telegram message as a provider-neutral inbound item: each chat (and, in a forum supergroup, each
// topic) is one conversation of ours; files are kept as Telegram file_ids (fetched with getFile only if
// ever needed), never downloaded.
import type { InboundAttachment, InboundItem, ReplyAddress } from '../channel-adapter.js';
import type { TelegramMessage, TelegramMessagePlace } from './telegram-update.js';

/** A forum topic is its own conversation; any other message_thread_id (a reply chain) is not. */
function topicOf(place: TelegramMessagePlace): number | undefined {
  return place.is_topic_message === true ? place.message_thread_id : undefined;
}

export function conversationOf(place: TelegramMessagePlace): string {
  const topic = topicOf(place);
  return topic === undefined ? String(place.chat.id) : `${place.chat.id}:${topic}`;
}

/** Replies go to the same chat and topic; in a group they quote the message they answer. */
export function replyAddressOf(place: TelegramMessagePlace, quote: boolean): ReplyAddress {
  const address: ReplyAddress = { chatId: String(place.chat.id) };
  const topic = topicOf(place);
  if (topic !== undefined) address.messageThreadId = String(topic);
  if (quote) address.replyToMessageId = String(place.message_id);
  return address;
}

function attachmentsOf(message: TelegramMessage): InboundAttachment[] {
  const attachments: InboundAttachment[] = [];
  const add = (kind: InboundAttachment['kind'], file: { file_id: string; file_name?: string; mime_type?: string }) =>
    attachments.push({
      kind,
      ref: file.file_id,
      ...(file.file_name === undefined ? {} : { name: file.file_name }),
      ...(file.mime_type === undefined ? {} : { mimeType: file.mime_type }),
    });
  // Telegram lists each photo in several sizes, smallest first: the largest is the photo.
  const photo = message.photo?.at(-1);
  if (photo !== undefined) add('image', photo);
  // An animation (a GIF) also comes as `document`, the same file: it is kept once.
  if (message.animation !== undefined) add('video', message.animation);
  else if (message.document !== undefined) add('file', message.document);
  for (const file of [message.audio, message.voice]) if (file !== undefined) add('audio', file);
  for (const file of [message.video, message.video_note]) if (file !== undefined) add('video', file);
  if (message.sticker !== undefined) add('other', message.sticker);
  return attachments;
}

/**
 * The item for a person's message, or undefined for one that carries nothing to answer (a member
 * joined, a title changed: service messages have neither text nor a file).
 */
export function readMessage(
  updateId: number,
  message: TelegramMessage & { from: { id: number } },
): InboundItem | undefined {
  const text = message.text ?? message.caption;
  const attachments = attachmentsOf(message);
  if (text === undefined && attachments.length === 0) return undefined;
  return {
    kind: 'message',
    providerMessageId: String(updateId),
    conversation: conversationOf(message),
    sender: String(message.from.id),
    address: replyAddressOf(message, message.chat.type !== 'private'),
    text,
    attachments,
  };
}
