// The spec's "IntegrationConfig": one variant per messaging provider, chosen by `provider`.
import { z } from 'zod';
import { ZWhatsAppConfig } from './whatsapp-config.js';

export const INTEGRATION_PROVIDERS = ['WHATSAPP'] as const;
export type TIntegrationProvider = (typeof INTEGRATION_PROVIDERS)[number];

export const ZWhatsAppIntegrationConfig = z.strictObject({
  provider: z.literal('WHATSAPP'),
  enabled: z.boolean().default(true),
  config: ZWhatsAppConfig,
});

export const ZIntegrationConfig = z
  .discriminatedUnion('provider', [ZWhatsAppIntegrationConfig], {
    // zod's default for an unknown discriminator is a bare "Invalid input"; name the accepted values instead.
    error: (issue) =>
      issue.code === 'invalid_union' ? `provider must be one of: ${INTEGRATION_PROVIDERS.join(', ')}` : undefined,
  })
  .meta({ id: 'IntegrationConfig', description: 'Provider, enabled flag and provider configuration' });
export type TIntegrationConfig = z.infer<typeof ZIntegrationConfig>;
