import { z } from 'zod';
import { ZChannelSecret } from './channel-config-fields.js';

export const ZTelegramConfig = z
  .strictObject({
    // From @BotFather, e.g. "123456:ABC-DEF…": calls the Bot API.
    botToken: ZChannelSecret,
    // Given to setWebhook as secret_token; Telegram sends it back in X-Telegram-Bot-Api-Secret-Token.
    // Telegram allows 1-256 characters of A-Z, a-z, 0-9, _ and -.
    secretToken: ZChannelSecret.regex(/^(enc:v1:.*|[A-Za-z0-9_-]{16,256})$/, {
      error: "Must be 16 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's secret_token alphabet)",
    }),
  })
  .meta({ id: 'TelegramConfig', description: 'Configuration of the TELEGRAM provider' });
export type TTelegramConfig = z.infer<typeof ZTelegramConfig>;

export const TELEGRAM_SECRET_FIELDS = ['botToken', 'secretToken'] as const satisfies readonly (keyof TTelegramConfig)[];
