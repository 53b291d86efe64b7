// Telegram webhook deliveries for tests: Bot API Updates as Telegram builds them, and the one proof
// Telegram gives, the secret_token of setWebhook in X-Telegram-Bot-Api-Secret-Token.
export type TelegramTextMessage = {
  updateId: number;
  text: string;
  chatId?: number;
  fromId?: number;
  chatType?: 'private' | 'group' | 'supergroup';
  /** Seconds since the epoch; now unless given. */
  date?: number;
  messageId?: number;
  /** A forum topic: sets message_thread_id and is_topic_message. */
  topicId?: number;
  fromBot?: boolean;
};

export function telegramTextUpdate(message: TelegramTextMessage): Record<string, unknown> {
  const chatId = message.chatId ?? message.fromId ?? 1001;
  return {
    update_id: message.updateId,
    message: {
      message_id: message.messageId ?? message.updateId,
      date: message.date ?? Math.floor(Date.now() / 1000),
      chat: { id: chatId, type: message.chatType ?? 'private' },
      from: { id: message.fromId ?? chatId, is_bot: message.fromBot ?? false, first_name: 'Test' },
      text: message.text,
      ...(message.topicId === undefined ? {} : { message_thread_id: message.topicId, is_topic_message: true }),
    },
  };
}

/** A press of an inline keyboard button under the bot's message `messageId` in `chatId`. */
export function telegramButtonPress(press: {
  updateId: number;
  data: string;
  chatId: number;
  fromId: number;
  messageId: number;
}): Record<string, unknown> {
  return {
    update_id: press.updateId,
    callback_query: {
      id: `cbq-${press.updateId}`,
      chat_instance: 'chat-instance',
      from: { id: press.fromId, is_bot: false, first_name: 'Test' },
      data: press.data,
      message: { message_id: press.messageId, date: 0, chat: { id: press.chatId, type: 'private' } },
    },
  };
}

/** The headers Telegram sends with each delivery to a webhook set with `secretToken`. */
export function telegramWebhookHeaders(secretToken: string | undefined): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    ...(secretToken === undefined ? {} : { 'X-Telegram-Bot-Api-Secret-Token': secretToken }),
  };
}
