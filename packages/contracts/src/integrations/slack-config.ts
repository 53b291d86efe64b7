import { z } from 'zod';
import { ZChannelSecret, ZProviderIdentifier } from './channel-config-fields.js';

export const ZSlackConfig = z
  .strictObject({
    // xoxb-…: posts and edits the replies (chat.postMessage, chat.update).
    botToken: ZChannelSecret,
    // Signs every request Slack sends (X-Slack-Signature, v0).
    signingSecret: ZChannelSecret,
    // The Slack app's id (api_app_id): a delivery for another app is refused, though signed.
    appId: ZProviderIdentifier.regex(/^A[A-Z0-9]+$/, { error: 'Must be a Slack app id such as "A0123456789"' }),
  })
  .meta({ id: 'SlackConfig', description: 'Configuration of the SLACK provider' });
export type TSlackConfig = z.infer<typeof ZSlackConfig>;

export const SLACK_SECRET_FIELDS = ['botToken', 'signingSecret'] as const satisfies readonly (keyof TSlackConfig)[];
