// A webhook delivery from the Bot Framework, checked and read: its bearer token first (nothing of an
// unproven body is read), then the activity, which the token must cover, on a connector host the
// operator allows. The Bot Framework expects a 200 for whatever it delivered, including the activities
// that need no answer.
import { AppError, refuseUnstorableBody } from '@agentplane/server-kit';
import type { IntegrationOf, ReceivedDelivery, WebhookDelivery } from '../channel-adapter.js';
import { type TBotActivity, ZBotActivity } from './bot-activity.js';
import type { BotFrameworkKeys } from './bot-framework-keys.js';
import { readActivity } from './read-activity.js';
import { allowedServiceUrl, type ServiceUrlPattern } from './service-url-allow.js';
import { checkTokenCoversActivity, verifyBotToken } from './verify-bot-token.js';

const ACKNOWLEDGED = { status: 200, contentType: 'application/json', body: '{}' } as const;
const MAX_DEPTH = 32;

function parseActivity(rawBody: Buffer): TBotActivity {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new AppError('bad_request', 'The body is not JSON.');
  }
  refuseUnstorableBody(body, { maxDepth: MAX_DEPTH });
  const parsed = ZBotActivity.safeParse(body);
  if (!parsed.success) {
    throw new AppError('bad_request', 'The body is not a Bot Framework activity.', {
      errors: parsed.error.issues.slice(0, 10).map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    });
  }
  return parsed.data;
}

export async function receiveActivity(
  delivery: WebhookDelivery,
  integration: IntegrationOf<'TEAMS'>,
  { keys, serviceUrlAllow }: { keys: BotFrameworkKeys; serviceUrlAllow: ServiceUrlPattern[] },
): Promise<ReceivedDelivery> {
  const { appId } = integration.config;
  const token = await verifyBotToken(delivery.header('authorization'), { appId, now: delivery.now, keys });
  const activity = parseActivity(delivery.rawBody);
  checkTokenCoversActivity(token, activity);
  if (allowedServiceUrl(activity.serviceUrl, serviceUrlAllow) === undefined) {
    throw new AppError('forbidden', 'The activity serviceUrl is not a connector host this engine replies to.');
  }
  const item = readActivity(activity, appId);
  return { answer: ACKNOWLEDGED, items: item === undefined ? [] : [item] };
}
