// The Microsoft Teams channel: deliveries from the Bot Framework checked with jose against its key
// set, replies through the Bot Framework connectors with a bot token from Entra ID.
import { INTEGRATION_WEBHOOK_SLUGS } from '@agentplane/contracts';
import type { ChannelAdapter } from '../channel-adapter.js';
import { createBotFrameworkKeys } from './bot-framework-keys.js';
import { createBotTokenCache } from './bot-token-cache.js';
import { receiveActivity } from './receive-activity.js';
import { createTeamsOutbound } from './teams-outbound.js';
import type { TeamsSettings } from './teams-settings.js';

export function createTeamsAdapter(settings: TeamsSettings): ChannelAdapter<'TEAMS'> {
  const keys = createBotFrameworkKeys(settings.openIdMetadataUrl, settings.timeoutMs);
  const tokens = createBotTokenCache(settings);
  const { serviceUrlAllow, timeoutMs } = settings;
  return {
    provider: 'TEAMS',
    slug: INTEGRATION_WEBHOOK_SLUGS.TEAMS,
    receive: (delivery, integration) => receiveActivity(delivery, integration, { keys, serviceUrlAllow }),
    outbound: (integration) => createTeamsOutbound(integration, { tokens, serviceUrlAllow, timeoutMs }),
  };
}
