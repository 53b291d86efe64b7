// Whether a request came from Slack: it is signed (X-Slack-Signature, v0: HMAC-SHA256 of
// `v0:{timestamp}:{body}` under the app's signing secret) and recent (X-Slack-Request-Timestamp within
// five minutes). The HMAC and its constant-time compare are @slack/bolt's verifySlackRequest, Slack's
// own maintained implementation; this module only feeds it well-formed headers and adds the window's
// other side, which bolt leaves open (a timestamp from the future).
//
// Imported from its own file: bolt's index loads its Express and Socket Mode receivers (over a second
// at engine start) for nothing we use. The version is pinned, and the unit tests cover this import.

import { AppError } from '@agentplane/server-kit';
import { verifySlackRequest } from '@slack/bolt/dist/receivers/verify-request.js';
import type { WebhookDelivery } from '../channel-adapter.js';

/** Slack's replay window: a signed request older (or newer) than this is refused. */
export const SLACK_TIMESTAMP_WINDOW_S = 5 * 60;

const TIMESTAMP = /^\d{1,12}$/;

const refuse = (detail: string) => new AppError('unauthorized', detail);

export function verifySlackSignature(delivery: WebhookDelivery, signingSecret: string): void {
  const timestamp = delivery.header('x-slack-request-timestamp');
  const signature = delivery.header('x-slack-signature');
  if (timestamp === undefined || signature === undefined) {
    throw refuse('X-Slack-Signature and X-Slack-Request-Timestamp are required.');
  }
  if (!TIMESTAMP.test(timestamp)) throw refuse('X-Slack-Request-Timestamp is not a Unix time in seconds.');
  const sentAt = Number(timestamp);
  if (sentAt - Math.floor(delivery.now / 1000) > SLACK_TIMESTAMP_WINDOW_S) {
    throw refuse('X-Slack-Request-Timestamp is in the future.');
  }
  try {
    verifySlackRequest({
      signingSecret,
      body: delivery.rawBody.toString('utf8'),
      headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': sentAt },
      nowMilliseconds: delivery.now,
    });
  } catch (error) {
    // Bolt's message says which rule failed (stale, unknown version, mismatch) and holds no secret.
    throw refuse(error instanceof Error ? error.message : 'The request signature does not match.');
  }
}
