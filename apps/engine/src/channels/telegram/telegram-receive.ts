// A Telegram webhook delivery, checked and read. Telegram proves a delivery with the secret_token the
// bot's setWebhook was given, sent back in X-Telegram-Bot-Api-Secret-Token (no signature, no
// timestamp): it is compared in constant time with the integration's, and a missing or wrong one is a
// 401 with nothing queued. Each update has an update_id, unique per bot: the queue keeps one item per
// id, so a delivery sent again is answered once. A message older than MAX_MESSAGE_AGE_MS (a backlog
// Telegram kept while the webhook was down) is acknowledged and dropped, not refused: any answer but a
// 2xx makes Telegram send it again and again.
import { AppError } from '@agentplane/server-kit';
import { equalsSecret } from '../../whatsapp/verify-webhook.js';
import type {
  InboundItem,
  IntegrationOf,
  ReceivedDelivery,
  WebhookAnswer,
  WebhookDelivery,
} from '../channel-adapter.js';
import { readJsonDelivery } from '../read-json-delivery.js';
import { botIdOf, createBotIdentities, isRepliedToBot, mentionsBot } from './addressed-to-bot.js';
import { decodeApprovalCallback } from './approval-callback.js';
import { conversationOf, readMessage, replyAddressOf } from './read-message.js';
import { createTelegramApi, type TelegramApiSettings } from './telegram-api.js';
import {
  type TelegramCallbackQuery,
  type TelegramMessage,
  type TelegramUpdate,
  ZTelegramUpdate,
} from './telegram-update.js';

type TelegramIntegration = IntegrationOf<'TELEGRAM'>;

export const SECRET_TOKEN_HEADER = 'x-telegram-bot-api-secret-token';
export const MAX_MESSAGE_AGE_MS = 24 * 60 * 60 * 1000;

const ACKNOWLEDGED: WebhookAnswer = { status: 200, contentType: 'text/plain', body: 'ok' };

/**
 * A button press is answered within the webhook's own response (Telegram runs the method a webhook
 * answers with), so the person's spinner stops without a call of ours. Whether the presser may decide
 * is the worker's question: it knows who started the run.
 */
function readButtonPress(updateId: number, query: TelegramCallbackQuery): ReceivedDelivery {
  const answer: WebhookAnswer = {
    status: 200,
    contentType: 'application/json',
    body: JSON.stringify({ method: 'answerCallbackQuery', callback_query_id: query.id }),
  };
  const decision = query.data === undefined ? undefined : decodeApprovalCallback(query.data);
  if (decision === undefined || query.message === undefined) return { answer, items: [] };
  const item: InboundItem = {
    kind: 'approval',
    providerMessageId: String(updateId),
    conversation: conversationOf(query.message),
    sender: String(query.from.id),
    address: replyAddressOf(query.message, false),
    interruptId: decision.interruptId,
    approved: decision.approved,
  };
  return { answer, items: [item] };
}

export function createTelegramReceive(settings: TelegramApiSettings) {
  const botIdentity = createBotIdentities();

  const isForTheBot = async (message: TelegramMessage, integration: TelegramIntegration): Promise<boolean> => {
    const { botToken } = integration.config;
    if (message.chat.type === 'private' || isRepliedToBot(message, botIdOf(botToken))) return true;
    const bot = await botIdentity(integration.id, botToken, createTelegramApi(settings, botToken));
    return mentionsBot(message, bot);
  };

  const readPersonsMessage = async (
    update: TelegramUpdate,
    message: TelegramMessage,
    integration: TelegramIntegration,
    now: number,
  ): Promise<InboundItem[]> => {
    const { from } = message;
    // The bot's own messages and other bots' are not answered (bots answering bots never stop).
    if (from === undefined || from.is_bot) return [];
    if (message.date * 1000 < now - MAX_MESSAGE_AGE_MS) return [];
    if (!(await isForTheBot(message, integration))) return [];
    const item = readMessage(update.update_id, { ...message, from });
    return item === undefined ? [] : [item];
  };

  return async (delivery: WebhookDelivery, integration: TelegramIntegration): Promise<ReceivedDelivery> => {
    const given = delivery.header(SECRET_TOKEN_HEADER);
    if (given === undefined || !equalsSecret(given, integration.config.secretToken)) {
      throw new AppError('unauthorized', 'X-Telegram-Bot-Api-Secret-Token is missing or does not match.');
    }
    const update = readJsonDelivery(delivery.rawBody, ZTelegramUpdate, 'a Telegram Bot API Update');
    if (update.callback_query !== undefined) return readButtonPress(update.update_id, update.callback_query);
    if (update.message === undefined) return { answer: ACKNOWLEDGED, items: [] };
    return { answer: ACKNOWLEDGED, items: await readPersonsMessage(update, update.message, integration, delivery.now) };
  };
}
