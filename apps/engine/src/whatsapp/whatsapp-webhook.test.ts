// The webhook's HTTP contract against a database-mode engine: the verify handshake, signatures,
// malformed bodies, disabled integrations, live config changes, and file mode with and without a
// database. Routing, the unsigned opt-out and size bounds are in whatsapp-delivery-auth.test.ts.
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { captureLogs } from '../testing/captured-logs.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { type FakeGraphApi, startFakeGraphApi } from '../testing/fake-graph-api.js';
import { engineCredentialsFor, startFileEngine, type TestEngineOptions } from '../testing/test-engine.js';
import {
  makeWebhookPayload,
  makeWhatsAppConfig,
  type PublishedAgent,
  postWebhook,
  publishWhatsAppAgent,
  startWhatsAppEngine,
  verifyHandshake,
  verifyUrl,
  withWhatsApp,
} from '../testing/whatsapp-agent.js';
import { signBody } from './verify-webhook.js';

let database: TestDatabase;
let graph: FakeGraphApi;
const engines: RunningEngine[] = [];

async function startAgentEngine(agent: PublishedAgent, options: TestEngineOptions = {}): Promise<RunningEngine> {
  const env = { ENGINE_CONFIG_POLL_MS: '50', WHATSAPP_POLL_MS: '50' };
  const engine = await startWhatsAppEngine(database, agent, graph, env, options);
  engines.push(engine);
  return engine;
}

const queued = async (agentId: string) => database.prisma.inboundMessage.count({ where: { agentId } });

beforeAll(async () => {
  database = await createTestDatabase();
  graph = await startFakeGraphApi();
});

afterAll(async () => {
  for (const engine of engines) await engine.shutdown();
  await graph?.close();
  await database?.drop();
});

describe('GET /integrations/whatsapp/webhook (verify handshake)', () => {
  const whatsapp = makeWhatsAppConfig();
  let engine: RunningEngine;
  beforeAll(async () => {
    engine = await startAgentEngine(await publishWhatsAppAgent(database, whatsapp));
  });

  it('echoes hub.challenge as text/plain when the mode is subscribe and the verify token matches', async () => {
    const response = await verifyHandshake(engine.url, whatsapp.verifyToken, '1158201444');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('1158201444');
  });

  it.each([
    ['a wrong verify token', { 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': 'c' }],
    ['a token that is only a prefix', { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-', 'hub.challenge': 'c' }],
    ['a wrong mode', { 'hub.mode': 'unsubscribe', 'hub.verify_token': whatsapp.verifyToken, 'hub.challenge': 'c' }],
    ['no mode', { 'hub.verify_token': whatsapp.verifyToken, 'hub.challenge': 'c' }],
    ['no verify token', { 'hub.mode': 'subscribe', 'hub.challenge': 'c' }],
    ['no challenge', { 'hub.mode': 'subscribe', 'hub.verify_token': whatsapp.verifyToken }],
    ['no parameters at all', {}],
  ])('answers 403 problem+json for %s', async (_name, params) => {
    const response = await fetch(verifyUrl(engine.url, params as Record<string, string>));
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.text()).not.toContain(whatsapp.verifyToken);
  });

  it('never writes the verify token to the log, whether the handshake succeeds or not', async () => {
    const logs = captureLogs();
    const logged = await startAgentEngine(await publishWhatsAppAgent(database, whatsapp), {
      logDestination: logs.destination,
    });
    const handshake = (token: string) => verifyHandshake(logged.url, token, 'c');
    expect((await handshake(whatsapp.verifyToken)).status).toBe(200);
    expect((await handshake(`${whatsapp.verifyToken}-wrong`)).status).toBe(403);
    const requestLines = logs.lines().filter((line) => String((line.req as { url?: string })?.url).includes('hub.'));
    expect(requestLines.map((line) => (line.req as { url: string }).url)).toEqual([
      expect.stringContaining('hub.verify_token=[redacted]'),
      expect.stringContaining('hub.verify_token=[redacted]'),
    ]);
    expect(JSON.stringify(logs.lines())).not.toContain(whatsapp.verifyToken);
  });
});

describe('POST /integrations/whatsapp/webhook (signature and payload)', () => {
  const whatsapp = makeWhatsAppConfig({ appSecret: 'app-secret-for-tests' });
  let agent: PublishedAgent;
  let engine: RunningEngine;
  beforeAll(async () => {
    agent = await publishWhatsAppAgent(database, whatsapp);
    engine = await startAgentEngine(agent);
  });

  it('accepts a delivery signed with the app secret, answering 200 at once', async () => {
    const before = await queued(agent.agentId);
    const response = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]), {
      appSecret: whatsapp.appSecret,
    });
    expect(response.status).toBe(200);
    expect(await queued(agent.agentId)).toBe(before + 1);
  });

  it('answers 401 to a signature made with another secret, and stores nothing', async () => {
    const before = await queued(agent.agentId);
    const response = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]), {
      appSecret: 'another-secret',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await queued(agent.agentId)).toBe(before);
  });

  it('answers 401 to a delivery without a signature', async () => {
    const response = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]));
    expect(response.status).toBe(401);
  });

  it('answers 401 when the body was altered after signing', async () => {
    const signed = JSON.stringify(makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915', text: 'pay 10' }]));
    const signature = signBody(signed, whatsapp.appSecret ?? '');
    const before = await queued(agent.agentId);
    const response = await postWebhook(engine.url, signed.replace('pay 10', 'pay 99'), { signature });
    expect(response.status).toBe(401);
    expect(await queued(agent.agentId)).toBe(before);
  });

  it('answers 400 to a signed body that is not JSON or not a Cloud API payload, and keeps serving', async () => {
    for (const body of ['{"object":', JSON.stringify({ object: 'whatsapp_business_account', entry: 'x' })]) {
      const response = await postWebhook(engine.url, body, { appSecret: whatsapp.appSecret });
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const messageWithoutSender = {
      object: 'whatsapp_business_account',
      entry: [{ changes: [{ value: { messages: [{ id: 'x', type: 'text' }] } }] }],
    };
    expect((await postWebhook(engine.url, messageWithoutSender, { appSecret: whatsapp.appSecret })).status).toBe(400);
    expect((await fetch(`${engine.url}/health`)).status).toBe(200);
  });

  it.each([
    ['a NUL in the text', { from: '4915', text: 'hi\u0000there' }, 'text.body'],
    ['a lone surrogate in the text', { from: '4915', text: 'hi \ud800' }, 'text.body'],
    ['a NUL in the message id', { from: '4915', id: 'wamid.\u0000' }, 'messages[0].id'],
    ['a lone surrogate in the message id', { from: '4915', id: 'wamid.\udfff' }, 'messages[0].id'],
    ['a NUL in the sender', { from: '49\u000015' }, 'wa_id'],
    ['a lone surrogate in the sender', { from: '\udc004915' }, 'wa_id'],
  ])(
    'answers 422 naming the field to a signed delivery with %s, queues nothing and keeps serving',
    async (_what, message, field) => {
      const before = await queued(agent.agentId);
      const response = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [message]), {
        appSecret: whatsapp.appSecret,
      });
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = (await response.json()) as { errors: { path: string }[] };
      expect(problem.errors[0]?.path).toContain(field);
      expect(await queued(agent.agentId)).toBe(before);
      expect((await fetch(`${engine.url}/health`)).status).toBe(200);
    },
  );

  it('acknowledges status updates without queueing anything', async () => {
    const before = await queued(agent.agentId);
    const statuses = [{ id: 'wamid.out', status: 'delivered', timestamp: '1', recipient_id: '4915' }];
    const response = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [], statuses), {
      appSecret: whatsapp.appSecret,
    });
    expect(response.status).toBe(200);
    expect(await queued(agent.agentId)).toBe(before);
  });
});

describe('which engines answer the webhook', () => {
  it('answers 404 when the integration is disabled, and stores nothing', async () => {
    const whatsapp = makeWhatsAppConfig();
    const agent = await publishWhatsAppAgent(database, whatsapp, { enabled: false });
    const engine = await startAgentEngine(agent);
    const verify = await verifyHandshake(engine.url, whatsapp.verifyToken, 'c');
    expect(verify.status).toBe(404);
    const post = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '1' }]));
    expect(post.status).toBe(404);
    expect(await queued(agent.agentId)).toBe(0);
  });

  it('answers 404 for an agent without any WhatsApp integration', async () => {
    const engine = await startFileEngine(makeLlmEngineConfig());
    engines.push(engine);
    expect((await postWebhook(engine.url, makeWebhookPayload('1', [{ from: '1' }]))).status).toBe(404);
  });

  it('uses a new verify token and app secret as soon as the manager publishes them', async () => {
    const first = makeWhatsAppConfig({ appSecret: 'first-secret' });
    const agent = await publishWhatsAppAgent(database, first);
    const engine = await startAgentEngine(agent);
    const second = { ...first, verifyToken: 'rotated-verify-token', appSecret: 'second-secret' };
    await agent.publish(agent.configWith(second));
    const handshake = (token: string) => verifyHandshake(engine.url, token, 'ok');
    await waitUntil(async () => (await handshake('rotated-verify-token')).status === 200, {
      what: 'the new verify token to be used',
    });
    expect((await handshake(first.verifyToken)).status).toBe(403);
    const payload = makeWebhookPayload(first.phoneNumberId, [{ from: '1' }]);
    expect((await postWebhook(engine.url, payload, { appSecret: 'first-secret' })).status).toBe(401);
    expect((await postWebhook(engine.url, payload, { appSecret: 'second-secret' })).status).toBe(200);
    // Disabling the integration stops the webhook at once.
    await agent.publish(agent.configWith(second, { enabled: false }));
    await waitUntil(async () => (await handshake('rotated-verify-token')).status === 404, {
      what: 'the disabled integration to answer 404',
    });
  });
});

describe('file mode (ENGINE_CONFIG_FILE)', () => {
  it('without a database: the verify handshake answers, deliveries get a 503 saying what to set', async () => {
    const whatsapp = makeWhatsAppConfig();
    const engine = await startFileEngine(withWhatsApp(makeLlmEngineConfig(), whatsapp));
    engines.push(engine);
    const handshake = await verifyHandshake(engine.url, whatsapp.verifyToken, 'c1');
    expect(handshake.status).toBe(200);
    expect(await handshake.text()).toBe('c1');
    const payload = makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '1' }]);
    const response = await postWebhook(engine.url, payload, { appSecret: whatsapp.appSecret });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const { detail } = (await response.json()) as { detail: string };
    expect(detail).toMatch(/set DATABASE_URL to the agent's engine credentials \(with ENGINE_CONFIG_FILE/);
  });

  it('with DATABASE_URL: deliveries go to the durable queue and are answered once', async () => {
    const whatsapp = makeWhatsAppConfig();
    const agent = await publishWhatsAppAgent(database, whatsapp);
    const { DATABASE_URL } = await engineCredentialsFor(database, agent.agentId);
    const engine = await startFileEngine(agent.configWith(whatsapp), {
      env: { DATABASE_URL, GRAPH_API_BASE_URL: graph.baseUrl, WHATSAPP_POLL_MS: '50' },
    });
    engines.push(engine);
    const payload = makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '491700000077', text: 'from a file' }]);
    expect((await postWebhook(engine.url, payload, { appSecret: whatsapp.appSecret })).status).toBe(200);
    await waitUntil(
      async () =>
        (await database.prisma.inboundMessage.findFirst({ where: { agentId: agent.agentId } }))?.status === 'done',
      { what: 'the message to be answered from the queue' },
    );
    const replies = graph.delivered.filter((request) => request.path.includes(`/${whatsapp.phoneNumberId}/`));
    expect(replies.map((request) => request.body.text?.body)).toEqual(['You said: from a file']);
  });
});
