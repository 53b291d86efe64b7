import { describe, expect, it } from '@jest/globals';
import { integrationWebhookUrl } from './integration-webhook.js';

const id = '0b3c5a9e-2f4d-4c1b-9a7e-3d2f1e0c9b8a';
const engineUrl = 'http://127.0.0.1:8001/agents/9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';

describe('integrationWebhookUrl', () => {
  it.each([
    ['SLACK', 'slack'],
    ['TELEGRAM', 'telegram'],
    ['DISCORD', 'discord'],
    ['TEAMS', 'teams'],
    ['GOOGLE_CHAT', 'google-chat'],
  ] as const)('puts a %s integration at /integrations/%s/webhook/{id}', (provider, slug) => {
    expect(integrationWebhookUrl(engineUrl, { id, provider })).toBe(`${engineUrl}/integrations/${slug}/webhook/${id}`);
  });

  it("keeps WhatsApp's one route, without an id", () => {
    expect(integrationWebhookUrl(engineUrl, { id, provider: 'WHATSAPP' })).toBe(
      `${engineUrl}/integrations/whatsapp/webhook`,
    );
  });

  it('makes no double slash after an engine_url that ends in one', () => {
    expect(integrationWebhookUrl('https://engine.example/', { id, provider: 'SLACK' })).toBe(
      `https://engine.example/integrations/slack/webhook/${id}`,
    );
  });
});
