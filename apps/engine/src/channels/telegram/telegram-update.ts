// The parts of a Bot API Update (https://core.telegram.org/bots/api#update) the engine reads. Loose
// on purpose: fields it does not read are dropped, enumerations Telegram may extend (chat types) are
// strings, and an update of a kind it does not read (edited_message, my_chat_member, …) parses to one
// with neither `message` nor `callback_query`.
import { z } from 'zod';

const ZTelegramId = z.number().int().safe();

const ZUser = z.object({ id: ZTelegramId, is_bot: z.boolean(), username: z.string().optional() });

const ZChat = z.object({ id: ZTelegramId, type: z.string() });

const ZEntity = z.object({
  type: z.string(),
  offset: z.number().int().min(0),
  length: z.number().int().min(0),
  user: ZUser.optional(),
});

const ZFile = z.object({
  file_id: z.string().min(1),
  file_name: z.string().optional(),
  mime_type: z.string().optional(),
});

/** Where a message is: the chat and, in a forum, its topic. */
const ZMessagePlace = z.object({
  message_id: ZTelegramId,
  chat: ZChat,
  message_thread_id: ZTelegramId.optional(),
  is_topic_message: z.boolean().optional(),
});

export const ZTelegramMessage = ZMessagePlace.extend({
  date: z.number().int(),
  from: ZUser.optional(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(ZEntity).optional(),
  caption_entities: z.array(ZEntity).optional(),
  reply_to_message: z.object({ from: ZUser.optional() }).optional(),
  photo: z.array(ZFile).optional(),
  document: ZFile.optional(),
  animation: ZFile.optional(),
  audio: ZFile.optional(),
  voice: ZFile.optional(),
  video: ZFile.optional(),
  video_note: ZFile.optional(),
  sticker: ZFile.optional(),
});
export type TelegramMessage = z.infer<typeof ZTelegramMessage>;
export type TelegramMessagePlace = z.infer<typeof ZMessagePlace>;

export const ZTelegramCallbackQuery = z.object({
  id: z.string().min(1),
  from: ZUser,
  data: z.string().optional(),
  // Absent for a button under an inline-mode message, which no approval of ours is.
  message: ZMessagePlace.optional(),
});
export type TelegramCallbackQuery = z.infer<typeof ZTelegramCallbackQuery>;

export const ZTelegramUpdate = z.object({
  update_id: z.number().int().min(0).safe(),
  message: ZTelegramMessage.optional(),
  callback_query: ZTelegramCallbackQuery.optional(),
});
export type TelegramUpdate = z.infer<typeof ZTelegramUpdate>;
