// The providers this engine takes messages from and replies through, each built once per engine
// process from the operator's settings (its API base URL, timeouts). Providers are registered here.
import type { TIntegrationProvider } from '@agentplane/contracts';
import type { ChannelSettings } from '../env.js';
import { createWhatsAppAdapter } from '../whatsapp/whatsapp-adapter.js';
import type { AnyChannelAdapter } from './channel-adapter.js';
import { createDiscordAdapter } from './discord/discord-adapter.js';
import { createGoogleChatAdapter } from './google-chat/google-chat-adapter.js';
import { createSlackAdapter } from './slack/slack-adapter.js';
import { createTeamsAdapter } from './teams/teams-adapter.js';
import { createTelegramAdapter } from './telegram/telegram-adapter.js';

export type ChannelAdapters = {
  /** The adapter of a provider, by its integration provider ('SLACK'). */
  byProvider: (provider: string) => AnyChannelAdapter | undefined;
  /** The adapter of a webhook path's `{slug}` ('slack'). */
  bySlug: (slug: string) => AnyChannelAdapter | undefined;
  /** Every provider with an adapter. */
  providers: () => TIntegrationProvider[];
};

/** Every provider's adapter, built from the operator's settings. */
export function buildChannelAdapters(settings: ChannelSettings): AnyChannelAdapter[] {
  return [
    createWhatsAppAdapter(settings.whatsapp),
    createDiscordAdapter(settings.discord),
    createGoogleChatAdapter(settings.googleChat),
    createTeamsAdapter(settings.teams),
    createSlackAdapter(settings.slack),
    createTelegramAdapter(settings.telegram),
  ];
}

/**
 * The registry of `adapters`. `overrides` take the place of the adapters of their providers: tests'
 * fakes of a provider, never set by the engine's own start.
 */
export function channelAdapters(adapters: AnyChannelAdapter[], overrides: AnyChannelAdapter[] = []): ChannelAdapters {
  const byProvider = new Map<string, AnyChannelAdapter>();
  for (const adapter of [...adapters, ...overrides]) byProvider.set(adapter.provider, adapter);
  const bySlug = new Map([...byProvider.values()].map((adapter) => [adapter.slug, adapter]));
  return {
    byProvider: (provider) => byProvider.get(provider),
    bySlug: (slug) => bySlug.get(slug),
    providers: () => [...byProvider.keys()] as TIntegrationProvider[],
  };
}
