// The DISCORD provider: interactions (slash commands and button presses) delivered to the webhook, and
// replies through the interaction's own webhook on Discord's API.
import { INTEGRATION_WEBHOOK_SLUGS } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import type { DiscordSettings } from '../../env.js';
import type { ChannelAdapter } from '../channel-adapter.js';
import { readJsonDelivery } from '../read-json-delivery.js';
import { createDiscordOutbound } from './discord-outbound.js';
import { ZInteraction } from './interaction-payload.js';
import { readInteraction } from './read-interaction.js';
import { verifyInteraction } from './verify-interaction.js';

export function createDiscordAdapter(settings: DiscordSettings): ChannelAdapter<'DISCORD'> {
  return {
    provider: 'DISCORD',
    slug: INTEGRATION_WEBHOOK_SLUGS.DISCORD,
    receive: async (delivery, integration) => {
      await verifyInteraction(delivery, integration.config.publicKey);
      const interaction = readJsonDelivery(delivery.rawBody, ZInteraction, 'a Discord interaction');
      // The public key already names the application; this keeps a misconfigured integration from
      // answering another application's interactions.
      if (interaction.application_id !== integration.config.applicationId) {
        throw new AppError('unauthorized', "The interaction is for another application than this integration's.");
      }
      return readInteraction(interaction);
    },
    outbound: (integration) => createDiscordOutbound(settings, integration),
  };
}
