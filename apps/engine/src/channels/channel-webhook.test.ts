// The generic webhook route, POST /integrations/{slug}/webhook/{integrationId}, with the made-up echo
// provider (testing/echo-channel.ts) in a real database-mode engine: what it queues, what it refuses
// (and then queues nothing), and what it answers.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import {
  type ChannelAgent,
  channelWebhookUrl,
  publishChannelAgent,
  queueRows,
  startChannelEngine,
} from '../testing/channel-agent.js';
import {
  createEchoAdapter,
  ECHO_SLUG,
  type FakeEchoApi,
  postEchoDelivery,
  startFakeEchoApi,
} from '../testing/echo-channel.js';
import { startFileEngine } from '../testing/test-engine.js';
import { makeWhatsAppConfig } from '../testing/whatsapp-agent.js';

const echoConfig = () => ({
  botToken: `bot-${randomUUID()}`,
  secretToken: `secret_${randomUUID().replaceAll('-', '')}`,
});

let database: TestDatabase;
let api: FakeEchoApi;
let agent: ChannelAgent;
let engine: RunningEngine;
let echo: ReturnType<typeof echoConfig>;
let echoId: string;
let disabledId: string;
let whatsappId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  api = await startFakeEchoApi();
  echo = echoConfig();
  agent = await publishChannelAgent(database, [
    { provider: 'TELEGRAM', config: echo },
    { provider: 'TELEGRAM', config: echoConfig(), enabled: false },
    { provider: 'WHATSAPP', config: makeWhatsAppConfig({ appSecret: undefined }) },
  ]);
  [echoId, disabledId, whatsappId] = agent.integrations.map((integration) => integration.id) as [
    string,
    string,
    string,
  ];
  engine = await startChannelEngine(
    database,
    agent,
    {},
    {
      channelAdapters: [createEchoAdapter({ baseUrl: api.baseUrl })],
    },
  );
});

afterAll(async () => {
  await engine?.shutdown();
  await api?.close();
  await database?.drop();
});

const url = (integrationId = echoId, slug = ECHO_SLUG) => channelWebhookUrl(engine.url, slug, integrationId);
const rows = () => queueRows(database, agent.agentId);
const message = (text = 'hello') => ({ id: `m-${randomUUID()}`, conversation: 'c-1', sender: 'u-1', text });

describe('a delivery', () => {
  it('is queued once with its conversation, sender and reply address, and answered as the provider expects', async () => {
    const before = (await rows()).length;
    const delivery = message('hi there');
    const first = await postEchoDelivery(url(), delivery, echo.secretToken);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true });
    // The provider delivers again (it did not see the answer): nothing more is queued.
    expect((await postEchoDelivery(url(), delivery, echo.secretToken)).status).toBe(200);
    const queued = (await rows()).slice(before);
    expect(queued).toHaveLength(1);
    expect(queued[0]).toMatchObject({
      integrationId: echoId,
      provider: 'TELEGRAM',
      providerMessageId: delivery.id,
      conversation: 'c-1',
      sender: 'u-1',
      kind: 'message',
      payload: { text: 'hi there', attachments: [], address: { conversation: 'c-1' } },
    });
  });

  it('answers a handshake without queueing anything', async () => {
    const before = (await rows()).length;
    const response = await postEchoDelivery(url(), { challenge: 'c-123' }, echo.secretToken);
    expect(await response.json()).toEqual({ challenge: 'c-123' });
    expect(await rows()).toHaveLength(before);
  });

  it('queues a press of an approval button as an approval', async () => {
    const press = {
      id: `p-${randomUUID()}`,
      conversation: 'c-2',
      sender: 'u-2',
      approval: { interruptId: 'i-1', approved: true },
    };
    expect((await postEchoDelivery(url(), press, echo.secretToken)).status).toBe(200);
    const row = (await rows()).find((candidate) => candidate.providerMessageId === press.id);
    expect(row).toMatchObject({ kind: 'approval', payload: { interruptId: 'i-1', approved: true } });
  });
});

describe('a refused delivery queues nothing', () => {
  const refusals: [string, () => Promise<Response>, number][] = [
    ['without the token', () => postEchoDelivery(url(), message(), undefined), 401],
    ['with a wrong token', () => postEchoDelivery(url(), message(), `${echo.secretToken}x`), 401],
    ['for an unknown integration', () => postEchoDelivery(url(randomUUID()), message(), echo.secretToken), 404],
    ['for an id that is no UUID', () => postEchoDelivery(url('not-an-id'), message(), echo.secretToken), 404],
    ['for a disabled integration', () => postEchoDelivery(url(disabledId), message(), echo.secretToken), 404],
    ["for another provider's integration", () => postEchoDelivery(url(whatsappId), message(), echo.secretToken), 404],
    ['for an unknown provider', () => postEchoDelivery(url(echoId, 'signal'), message(), echo.secretToken), 404],
    ['that is not JSON', () => postEchoDelivery(url(), '{"id":', echo.secretToken), 400],
    ['holding a NUL character', () => postEchoDelivery(url(), message('a\u0000b'), echo.secretToken), 422],
    ['holding a lone surrogate', () => postEchoDelivery(url(), message('a\ud800b'), echo.secretToken), 422],
    ['over 1 MiB', () => postEchoDelivery(url(), message('x'.repeat(1024 * 1024 + 1)), echo.secretToken), 413],
  ];

  it.each(refusals)('%s', async (_what, post, status) => {
    const before = (await rows()).length;
    const response = await post();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await rows()).toHaveLength(before);
  });
});

describe('GET /health', () => {
  it("lists each enabled integration's delivery state, as its provider's adapter says", async () => {
    const health = (await (await fetch(`${engine.url}/health`)).json()) as {
      status: string;
      integrations: { id: string; provider: string; deliveries: string; error?: string }[];
    };
    expect(health.integrations).toEqual([
      { id: echoId, provider: 'TELEGRAM', deliveries: 'signature_required' },
      { id: whatsappId, provider: 'WHATSAPP', deliveries: 'refused', error: expect.stringMatching(/No appSecret/) },
    ]);
    expect(health.status).toBe('degraded');
  });
});

describe('without a database', () => {
  it('is a 503 for a known integration, and a 404 for an unknown one', async () => {
    const config = agent.configWith();
    const fileEngine = await startFileEngine(config, {
      channelAdapters: [createEchoAdapter({ baseUrl: api.baseUrl })],
    });
    try {
      const at = (id: string) => channelWebhookUrl(fileEngine.url, ECHO_SLUG, id);
      const response = await postEchoDelivery(at(echoId), message(), echo.secretToken);
      expect(response.status).toBe(503);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/DATABASE_URL/);
      expect((await postEchoDelivery(at(randomUUID()), message(), echo.secretToken)).status).toBe(404);
    } finally {
      await fileEngine.shutdown();
    }
  });
});
