// Replies through the Bot API: sendMessage and editMessageText in Telegram's HTML parse mode, and an
// approval as a message with an inline keyboard. Telegram's limits (https://core.telegram.org/bots/faq):
// 4096 characters a message; about one message a second in a chat and 20 a minute in a group, edits
// included, 30 a second over all chats. One edit every 3 s keeps a streamed reply within a group's 20 a
// minute; a 429 beyond that carries retry_after, which the worker waits out.
import type { ChannelOutbound, IntegrationOf, ReplyAddress } from '../channel-adapter.js';
import { ChannelApiError } from '../channel-adapter.js';
import { encodeApprovalCallback } from './approval-callback.js';
import { callTelegram, createTelegramApi, type TelegramApiSettings } from './telegram-api.js';
import { markdownToTelegramHtml } from './telegram-html.js';

export const TELEGRAM_TEXT_LIMIT = 4096;
export const TELEGRAM_EDIT_INTERVAL_MS = 3000;

// Telegram's words for HTML it cannot parse, and for an edit that changes nothing.
const UNPARSABLE = /can't parse entities/i;
const UNCHANGED = /message is not modified/i;

/** What a formatted part reads as without markup, for a part whose markup Telegram refused. */
function toPlainText(html: string): string {
  return html
    .replaceAll(/<[^>]*>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');
}

function isRefused(error: unknown, description: RegExp): boolean {
  return error instanceof ChannelApiError && error.status === 400 && description.test(error.message);
}

type ParseMode = 'HTML' | undefined;

/**
 * Sends formatted text in HTML parse mode. A part cut from a longer reply may split a tag, which
 * Telegram refuses whole: that part goes out again as plain text rather than not at all.
 */
async function sendFormatted<T>(html: string, send: (text: string, parseMode: ParseMode) => Promise<T>): Promise<T> {
  try {
    return await send(html, 'HTML');
  } catch (error) {
    if (!isRefused(error, UNPARSABLE)) throw error;
    return send(toPlainText(html), undefined);
  }
}

function placeOf(address: ReplyAddress) {
  const { chatId, messageThreadId, replyToMessageId } = address;
  if (chatId === undefined) throw new ChannelApiError('The reply address names no Telegram chat', false, undefined);
  return {
    chatId,
    ...(messageThreadId === undefined ? {} : { message_thread_id: Number(messageThreadId) }),
    ...(replyToMessageId === undefined
      ? {}
      : { reply_parameters: { message_id: Number(replyToMessageId), allow_sending_without_reply: true } }),
  };
}

const NO_PREVIEW = { link_preview_options: { is_disabled: true } };

type SendExtra = {
  parse_mode?: 'HTML';
  reply_markup?: { inline_keyboard: { text: string; callback_data: string }[][] };
};

const parseModeOption = (parseMode: ParseMode): SendExtra => (parseMode === undefined ? {} : { parse_mode: parseMode });

export function createTelegramOutbound(
  settings: TelegramApiSettings,
  integration: IntegrationOf<'TELEGRAM'>,
): ChannelOutbound {
  const api = createTelegramApi(settings, integration.config.botToken);

  const send = async (address: ReplyAddress, text: string, extra: SendExtra, signal: AbortSignal) => {
    const { chatId, ...place } = placeOf(address);
    const options = { ...place, ...NO_PREVIEW, ...extra };
    const sent = await callTelegram('sendMessage', signal, (abort) => api.sendMessage(chatId, text, options, abort));
    return String(sent.message_id);
  };

  const edit = async (
    address: ReplyAddress,
    messageId: string,
    text: string,
    parseMode: ParseMode,
    signal: AbortSignal,
  ) => {
    const { chatId } = placeOf(address);
    const options = { ...NO_PREVIEW, ...parseModeOption(parseMode) };
    try {
      await callTelegram('editMessageText', signal, (abort) =>
        api.editMessageText(chatId, Number(messageId), text, options, abort),
      );
    } catch (error) {
      // The same text again (a delta that changed nothing visible) is already what the message says.
      if (!isRefused(error, UNCHANGED)) throw error;
    }
  };

  return {
    maxLength: TELEGRAM_TEXT_LIMIT,
    format: markdownToTelegramHtml,
    post: (address, html, signal) =>
      sendFormatted(html, (text, parseMode) => send(address, text, parseModeOption(parseMode), signal)),
    edit: (address, messageId, html, signal) =>
      sendFormatted(html, (text, parseMode) => edit(address, messageId, text, parseMode, signal)),
    editIntervalMs: TELEGRAM_EDIT_INTERVAL_MS,
    askApproval: async (address, request, signal) => {
      const button = (text: string, approved: boolean) => ({
        text,
        callback_data: encodeApprovalCallback({ interruptId: request.interruptId, approved }),
      });
      const keyboard = { inline_keyboard: [[button('Approve', true), button('Reject', false)]] };
      // The prompt is plain text, sent without a parse mode: nothing in it is markup.
      return send(address, request.prompt, { reply_markup: keyboard }, signal);
    },
  };
}
