import type { TIntegrationProvider } from '@agentplane/contracts';

const NAMES: Record<TIntegrationProvider, string> = {
  WHATSAPP: 'WhatsApp',
  SLACK: 'Slack',
  TELEGRAM: 'Telegram',
  DISCORD: 'Discord',
  TEAMS: 'Teams',
  GOOGLE_CHAT: 'Google Chat',
};

/** The provider's name as people write it, for logs and problem details. */
export const providerName = (provider: string): string => NAMES[provider as TIntegrationProvider] ?? provider;
