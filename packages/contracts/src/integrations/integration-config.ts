// The spec's "IntegrationConfig": one variant per messaging provider, chosen by `provider`.
import { z } from 'zod';
import { ZDiscordConfig } from './discord-config.js';
import { ZGoogleChatConfig } from './google-chat-config.js';
import { ZSlackConfig } from './slack-config.js';
import { ZTeamsConfig } from './teams-config.js';
import { ZTelegramConfig } from './telegram-config.js';
import { ZWhatsAppConfig } from './whatsapp-config.js';

export const INTEGRATION_PROVIDERS = ['WHATSAPP', 'SLACK', 'TELEGRAM', 'DISCORD', 'TEAMS', 'GOOGLE_CHAT'] as const;
export type TIntegrationProvider = (typeof INTEGRATION_PROVIDERS)[number];

function providerVariant<P extends TIntegrationProvider, C extends z.ZodType>(provider: P, config: C) {
  return z.strictObject({ provider: z.literal(provider), enabled: z.boolean().default(true), config });
}

export const ZWhatsAppIntegrationConfig = providerVariant('WHATSAPP', ZWhatsAppConfig);
export const ZSlackIntegrationConfig = providerVariant('SLACK', ZSlackConfig);
export const ZTelegramIntegrationConfig = providerVariant('TELEGRAM', ZTelegramConfig);
export const ZDiscordIntegrationConfig = providerVariant('DISCORD', ZDiscordConfig);
export const ZTeamsIntegrationConfig = providerVariant('TEAMS', ZTeamsConfig);
export const ZGoogleChatIntegrationConfig = providerVariant('GOOGLE_CHAT', ZGoogleChatConfig);

/** Every provider's variant, in INTEGRATION_PROVIDERS order. */
export const INTEGRATION_VARIANTS = [
  ZWhatsAppIntegrationConfig,
  ZSlackIntegrationConfig,
  ZTelegramIntegrationConfig,
  ZDiscordIntegrationConfig,
  ZTeamsIntegrationConfig,
  ZGoogleChatIntegrationConfig,
] as const;

export const ZIntegrationConfig = z
  .discriminatedUnion('provider', INTEGRATION_VARIANTS, {
    // zod's default for an unknown discriminator is a bare "Invalid input"; name the accepted values instead.
    error: (issue) =>
      issue.code === 'invalid_union' ? `provider must be one of: ${INTEGRATION_PROVIDERS.join(', ')}` : undefined,
  })
  .meta({ id: 'IntegrationConfig', description: 'Provider, enabled flag and provider configuration' });
export type TIntegrationConfig = z.infer<typeof ZIntegrationConfig>;
