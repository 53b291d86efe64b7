// Where each provider delivers to an agent: the webhook URL an operator gives the provider, under the
// agent's engine_url. One derivation for the engine's routes and the console, so that they never disagree.
import type { TIntegrationProvider } from './integration-config.js';

/** The path segment naming a provider in its webhook route. */
export const INTEGRATION_WEBHOOK_SLUGS = {
  WHATSAPP: 'whatsapp',
  SLACK: 'slack',
  TELEGRAM: 'telegram',
  DISCORD: 'discord',
  TEAMS: 'teams',
  GOOGLE_CHAT: 'google-chat',
} as const satisfies Record<TIntegrationProvider, string>;

/**
 * The webhook URL of one integration of an agent. WhatsApp's has no integration id: Meta's handshake and
 * deliveries name the phone number, which picks the integration. A trailing slash on engineUrl makes no double one.
 */
export function integrationWebhookUrl(
  engineUrl: string,
  integration: { id: string; provider: TIntegrationProvider },
): string {
  const base = `${engineUrl.replace(/\/+$/, '')}/integrations/${INTEGRATION_WEBHOOK_SLUGS[integration.provider]}/webhook`;
  return integration.provider === 'WHATSAPP' ? base : `${base}/${encodeURIComponent(integration.id)}`;
}
