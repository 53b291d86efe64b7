// The SLACK provider: Events API and interactivity requests, verified with the integration's signing
// secret, and replies through the Web API with its bot token.
import { INTEGRATION_WEBHOOK_SLUGS } from '@agentplane/contracts';
import type { SlackApiSettings } from '../../env.js';
import type { ChannelAdapter } from '../channel-adapter.js';
import { readSlackDelivery } from './read-slack-delivery.js';
import { slackOutbound } from './slack-outbound.js';
import { verifySlackSignature } from './verify-slack-signature.js';

export function createSlackAdapter(settings: SlackApiSettings): ChannelAdapter<'SLACK'> {
  return {
    provider: 'SLACK',
    slug: INTEGRATION_WEBHOOK_SLUGS.SLACK,
    // Checked before anything is read: every request Slack sends, the handshake included, is signed.
    receive: async (delivery, { config }) => {
      verifySlackSignature(delivery, config.signingSecret);
      return readSlackDelivery(delivery.rawBody, delivery.header('content-type'), config.appId);
    },
    outbound: ({ config }) =>
      slackOutbound({ baseUrl: settings.apiBaseUrl, timeoutMs: settings.apiTimeoutMs, botToken: config.botToken }),
  };
}
