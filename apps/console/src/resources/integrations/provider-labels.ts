import type { TIntegrationProvider } from '@agentplane/contracts';

// The providers as people call them, for the form's select, the list and the agents' webhook table.
const PROVIDER_LABELS: Record<TIntegrationProvider, string> = {
  WHATSAPP: 'WhatsApp',
  SLACK: 'Slack',
  TELEGRAM: 'Telegram',
  DISCORD: 'Discord',
  TEAMS: 'Microsoft Teams',
  GOOGLE_CHAT: 'Google Chat',
};

export function providerLabel(provider: TIntegrationProvider): string {
  return PROVIDER_LABELS[provider];
}
