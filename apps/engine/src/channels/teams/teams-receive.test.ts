import { randomUUID } from 'node:crypto';
import { AppError } from '@agentplane/server-kit';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type FakeTeamsApi, fakeTeamsSettings, startFakeTeamsApi } from '../../testing/fake-teams-api.js';
import { rejectionOf } from '../../testing/rejection-of.js';
import { makeTeamsActivity } from '../../testing/teams-activities.js';
import { createBotFrameworkSigner } from '../../testing/teams-delivery-signer.js';
import type { IntegrationOf, WebhookDelivery } from '../channel-adapter.js';
import { createTeamsAdapter } from './teams-adapter.js';

const APP_ID = randomUUID();
const integration = {
  id: randomUUID(),
  provider: 'TEAMS',
  enabled: true,
  config: { appId: APP_ID, appPassword: 'app-password' },
} as IntegrationOf<'TEAMS'>;

let api: FakeTeamsApi;
let adapter: ReturnType<typeof createTeamsAdapter>;

function delivery(body: string | Record<string, unknown>, authorization?: string, now = Date.now()): WebhookDelivery {
  const headers: Record<string, string | undefined> = { authorization };
  return {
    rawBody: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
    header: (name) => headers[name],
    url: `http://engine/integrations/teams/webhook/${integration.id}`,
    now,
  };
}

async function signed(activity: Record<string, unknown>, claims: { appId?: string; serviceUrl?: string } = {}) {
  const token = await api.signer.token({
    appId: claims.appId ?? APP_ID,
    serviceUrl: 'serviceUrl' in claims ? claims.serviceUrl : (activity.serviceUrl as string),
  });
  return delivery(activity, `Bearer ${token}`);
}

const message = (options: Partial<Parameters<typeof makeTeamsActivity>[0]> = {}) =>
  makeTeamsActivity({ serviceUrl: api.serviceUrl, appId: APP_ID, text: 'hello', ...options });

/** The refusal `adapter.receive` throws for the delivery. */
const refused = (received: WebhookDelivery) => rejectionOf(adapter.receive(received, integration), AppError);

beforeAll(async () => {
  api = await startFakeTeamsApi();
  adapter = createTeamsAdapter(fakeTeamsSettings(api, 2000));
});

afterAll(async () => {
  await api.close();
});

describe('a Teams delivery signed by the Bot Framework', () => {
  it('is acknowledged with 200 and read as a message of its conversation, keyed by conversation and activity id', async () => {
    const activity = message({
      id: '1700000000001',
      conversationId: '19:abc@thread.tacv2;messageid=1699',
      from: '29:alice',
    });
    const received = await adapter.receive(await signed(activity), integration);
    expect(received.answer).toEqual({ status: 200, contentType: 'application/json', body: '{}' });
    expect(received.items).toEqual([
      {
        kind: 'message',
        providerMessageId: '19:abc@thread.tacv2;messageid=1699|1700000000001',
        conversation: '19:abc@thread.tacv2;messageid=1699',
        sender: '29:alice',
        text: 'hello',
        attachments: [],
        address: {
          serviceUrl: api.serviceUrl,
          conversationId: '19:abc@thread.tacv2;messageid=1699',
          replyToId: '1700000000001',
        },
      },
    ]);
  });

  it('drops the @mention of the bot and keeps files and images as references, not the HTML copy of the text', async () => {
    const activity = message({
      text: '<at>Agent</at> summarise this',
      entities: [{ type: 'mention', text: '<at>Agent</at>', mentioned: { id: `28:${APP_ID}`, name: 'Agent' } }],
      attachments: [
        { contentType: 'text/html', content: '<p>summarise this</p>' },
        {
          contentType: 'application/vnd.microsoft.teams.file.download.info',
          name: 'report.pdf',
          contentUrl: 'https://contoso.sharepoint.com/report.pdf',
          content: { downloadUrl: 'https://contoso.sharepoint.com/download/report.pdf', fileType: 'pdf' },
        },
        {
          contentType: 'image/png',
          contentUrl: 'https://smba.trafficmanager.net/amer/v3/attachments/1/views/original',
        },
      ],
    });
    const [item] = (await adapter.receive(await signed(activity), integration)).items;
    expect(item).toMatchObject({
      kind: 'message',
      text: 'summarise this',
      attachments: [
        { kind: 'file', ref: 'https://contoso.sharepoint.com/download/report.pdf', name: 'report.pdf' },
        {
          kind: 'image',
          ref: 'https://smba.trafficmanager.net/amer/v3/attachments/1/views/original',
          mimeType: 'image/png',
        },
      ],
    });
  });

  it('reads a press of an approval button as an approval by its presser', async () => {
    const activity = message({
      text: undefined,
      from: '29:bob',
      value: { action: 'agentplane.approval', interruptId: 'int-1', approved: false },
    });
    const [item] = (await adapter.receive(await signed(activity), integration)).items;
    expect(item).toMatchObject({ kind: 'approval', interruptId: 'int-1', approved: false, sender: '29:bob' });
  });

  it('acknowledges what needs no answer without an item: the bot itself, updates, typing, other cards, empty text', async () => {
    const ignored = [
      message({ from: `28:${APP_ID}` }),
      message({ type: 'conversationUpdate', text: undefined }),
      message({ type: 'typing', text: undefined }),
      message({
        type: 'invoke',
        text: undefined,
        value: { action: 'agentplane.approval', interruptId: 'i', approved: true },
      }),
      message({ text: undefined, value: { someOtherCard: true } }),
      message({ text: '   ' }),
    ];
    for (const activity of ignored) {
      const received = await adapter.receive(await signed(activity), integration);
      expect(received).toEqual({ answer: expect.objectContaining({ status: 200 }), items: [] });
    }
  });
});

describe('a Teams delivery that is not proven', () => {
  it('is refused with 401 without a bearer token, or with one that is not a JWT', async () => {
    for (const authorization of [undefined, '', 'Basic abc', 'Bearer not-a-jwt', 'Bearer a.b.c']) {
      const error = await refused(delivery(message(), authorization));
      expect(error.status).toBe(401);
      expect(error.headers['WWW-Authenticate']).toBe('Bearer');
    }
  });

  it('is refused with 401 when its token was minted for another bot', async () => {
    const error = await refused(await signed(message(), { appId: randomUUID() }));
    expect(error.status).toBe(401);
  });

  it('is refused with 401 when its token expired more than the 5 minutes of clock skew ago (stale)', async () => {
    const activity = message();
    const token = await api.signer.token({
      appId: APP_ID,
      serviceUrl: api.serviceUrl,
      expiresAt: Math.floor(Date.now() / 1000) - 3600,
      issuedAt: Math.floor(Date.now() / 1000) - 7200,
    });
    const error = await refused(delivery(activity, `Bearer ${token}`));
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/expired/);
  });

  it('is refused with 401 when signed by a key the Bot Framework does not list, or issued by another issuer', async () => {
    const stranger = await createBotFrameworkSigner();
    const forged = await stranger.token({ appId: APP_ID, serviceUrl: api.serviceUrl });
    expect((await refused(delivery(message(), `Bearer ${forged}`))).status).toBe(401);
    const otherIssuer = await api.signer.token({
      appId: APP_ID,
      serviceUrl: api.serviceUrl,
      issuer: 'https://sts.windows.net/x/',
    });
    expect((await refused(delivery(message(), `Bearer ${otherIssuer}`))).status).toBe(401);
  });

  it('is refused with 401 when the token does not cover the activity: another serviceUrl, none, or a channel its key does not endorse', async () => {
    const otherServiceUrl = await signed(message(), { serviceUrl: `${api.origin}/emea/` });
    expect((await refused(otherServiceUrl)).status).toBe(401);
    const noServiceUrl = await signed(message(), { serviceUrl: undefined });
    expect((await refused(noServiceUrl)).status).toBe(401);
    const otherChannel = await signed({ ...message(), channelId: 'webchat' });
    expect((await refused(otherChannel)).status).toBe(401);
  });

  it('is refused with 403 when signed for a connector host the operator does not allow', async () => {
    const activity = message({ serviceUrl: 'https://attacker.example/amer/' });
    const error = await refused(await signed(activity));
    expect(error.status).toBe(403);
  });

  it('is answered 503 while the Bot Framework keys cannot be fetched, so that it is delivered again', async () => {
    const unreachable = createTeamsAdapter({
      openIdMetadataUrl: `${api.origin}/no-such-metadata`,
      loginBaseUrl: api.origin,
      serviceUrlAllow: [],
      timeoutMs: 30_000,
    });
    const error = await rejectionOf(unreachable.receive(await signed(message()), integration), AppError);
    expect(error.status).toBe(503);
  });
});

describe('a signed Teams delivery with a body the engine cannot take', () => {
  it('is a 400 when not JSON or not an activity, a 4xx for NUL, lone surrogates and huge text', async () => {
    const token = await api.signer.token({ appId: APP_ID, serviceUrl: api.serviceUrl });
    const cases: [string | Record<string, unknown>, number][] = [
      ['{not json', 400],
      [{ type: 'message' }, 400],
      [message({ text: 'a\u0000b' }), 422],
      [message({ text: 'a\ud800b' }), 422],
      [message({ text: 'x'.repeat(50_000) }), 400],
    ];
    for (const [body, status] of cases) {
      const error = await refused(delivery(body, `Bearer ${token}`));
      expect(error.status).toBe(status);
    }
  });
});
