// Which messages the bot answers. In a private chat, every one. In a group, only those meant for it:
// a reply to one of its messages, an @mention of it, or a command addressed to it (/help@its_bot); the
// rest of the group's talk is not the bot's to answer (with privacy mode on, Telegram does not even
// send most of it). The bot's user id is the token's prefix; its username is asked of getMe once.
import { AppError } from '@agentplane/server-kit';
import type { Api } from 'grammy';
import { ChannelApiError } from '../channel-adapter.js';
import { callTelegram } from './telegram-api.js';
import type { TelegramMessage } from './telegram-update.js';

export type BotIdentity = { id: number; username: string };

/** A bot token is `<bot user id>:<secret>`. */
export function botIdOf(botToken: string): number {
  return Number(botToken.slice(0, botToken.indexOf(':')));
}

/** An @mention of the bot, a text mention of it, or a command addressed to it (/help@its_bot). */
export function mentionsBot(message: TelegramMessage, bot: BotIdentity): boolean {
  const text = message.text ?? message.caption ?? '';
  const entities = message.entities ?? message.caption_entities ?? [];
  const handle = `@${bot.username.toLowerCase()}`;
  // Entity offsets and lengths count UTF-16 code units, as JavaScript strings do.
  return entities.some((entity) => {
    const span = text.slice(entity.offset, entity.offset + entity.length).toLowerCase();
    if (entity.type === 'mention') return span === handle;
    if (entity.type === 'text_mention') return entity.user?.id === bot.id;
    if (entity.type === 'bot_command') return span.endsWith(handle);
    return false;
  });
}

export function isRepliedToBot(message: TelegramMessage, botId: number): boolean {
  return message.reply_to_message?.from?.id === botId;
}

/** The bot's identity per integration, asked once per token (a new token may be another bot). */
export function createBotIdentities(): (integrationId: string, botToken: string, api: Api) => Promise<BotIdentity> {
  const known = new Map<string, { botToken: string; identity: Promise<BotIdentity> }>();
  return (integrationId, botToken, api) => {
    const cached = known.get(integrationId);
    if (cached?.botToken === botToken) return cached.identity;
    const identity = callTelegram('getMe', undefined, () => api.getMe()).then(
      (me) => ({ id: me.id, username: me.username }),
      (error: unknown) => {
        known.delete(integrationId);
        // Telegram sends the update again later: a 503 asks it to.
        const detail = error instanceof ChannelApiError ? error.message : 'the call failed';
        throw new AppError('service_unavailable', `The bot's identity could not be read (${detail}).`);
      },
    );
    known.set(integrationId, { botToken, identity });
    return identity;
  };
}
