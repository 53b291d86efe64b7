// The TELEGRAM provider of the one inbound queue: webhook deliveries checked by their secret token and
// read into inbound items, replies and approval buttons through the Bot API at TELEGRAM_API_BASE_URL.
import { INTEGRATION_WEBHOOK_SLUGS } from '@agentplane/contracts';
import type { ChannelAdapter } from '../channel-adapter.js';
import type { TelegramApiSettings } from './telegram-api.js';
import { createTelegramOutbound } from './telegram-outbound.js';
import { createTelegramReceive } from './telegram-receive.js';

export function createTelegramAdapter(settings: TelegramApiSettings): ChannelAdapter<'TELEGRAM'> {
  return {
    provider: 'TELEGRAM',
    slug: INTEGRATION_WEBHOOK_SLUGS.TELEGRAM,
    receive: createTelegramReceive(settings),
    outbound: (integration) => createTelegramOutbound(settings, integration),
  };
}
