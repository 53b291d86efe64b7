import { z } from 'zod';
import { ZChannelSecret, ZProviderIdentifier } from './channel-config-fields.js';

export const ZDiscordConfig = z
  .strictObject({
    // The application's id (a snowflake): the interaction webhooks' path, and the audience of deliveries.
    applicationId: ZProviderIdentifier.regex(/^\d{15,25}$/, { error: 'Must be a Discord application id (digits)' }),
    // The application's Ed25519 public key, which checks every interaction; public, so not a secret.
    publicKey: ZProviderIdentifier.regex(/^[0-9a-fA-F]{64}$/, { error: 'Must be 64 hexadecimal characters' }),
    // Answers interactions and registers the slash command.
    botToken: ZChannelSecret,
  })
  .meta({ id: 'DiscordConfig', description: 'Configuration of the DISCORD provider' });
export type TDiscordConfig = z.infer<typeof ZDiscordConfig>;

export const DISCORD_SECRET_FIELDS = ['botToken'] as const satisfies readonly (keyof TDiscordConfig)[];
