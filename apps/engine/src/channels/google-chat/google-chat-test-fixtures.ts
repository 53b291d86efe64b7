// Openings the Google Chat adapter's tests share: an integration of a service account the fake Google
// knows, and a webhook delivery of an event.
import { randomUUID } from 'node:crypto';
import type { FakeGoogleChatApi } from '../../testing/fake-google-chat-api.js';
import type { IntegrationOf, WebhookDelivery } from '../channel-adapter.js';

export const PROJECT_NUMBER = '123456789012';

export async function makeGoogleChatIntegration(
  google: FakeGoogleChatApi,
  audience = PROJECT_NUMBER,
): Promise<IntegrationOf<'GOOGLE_CHAT'>> {
  const account = await google.addServiceAccount();
  return {
    id: randomUUID(),
    provider: 'GOOGLE_CHAT',
    enabled: true,
    config: { audience, serviceAccountEmail: account.email, serviceAccountPrivateKey: account.privateKey },
  };
}

export function makeDelivery(body: unknown, authorization: string | undefined, now = Date.now()): WebhookDelivery {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    header: (name) => (name === 'authorization' ? authorization : undefined),
    url: 'https://engine.example/integrations/google-chat/webhook/x',
    now,
  };
}
