// Who may post deliveries, through HTTP against a database-mode engine: an integration without an app
// secret refuses them unless it opts out (logged), the signature is checked under the secret of the
// integration each message is routed to, a delivery is bounded in size, and /health tells which
// integrations cannot receive anything.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { captureLogs } from '../testing/captured-logs.js';
import { type FakeGraphApi, startFakeGraphApi } from '../testing/fake-graph-api.js';
import type { TestEngineOptions } from '../testing/test-engine.js';
import {
  makeWebhookPayload,
  makeWhatsAppConfig,
  type PublishedAgent,
  postWebhook,
  publishWhatsAppAgent,
  startWhatsAppEngine,
  verifyUrl,
  type WhatsAppTestConfig,
} from '../testing/whatsapp-agent.js';
import { MAX_DELIVERY_ITEMS } from './route-delivery.js';

let database: TestDatabase;
let graph: FakeGraphApi;
const engines: RunningEngine[] = [];

async function startAgentEngine(agent: PublishedAgent, options: TestEngineOptions = {}): Promise<RunningEngine> {
  const engine = await startWhatsAppEngine(database, agent, graph, {}, options);
  engines.push(engine);
  return engine;
}

const queued = (agentId: string) => database.prisma.inboundMessage.findMany({ where: { agentId } });

type Health = { status: string; integrations: { id: string; deliveries: string; error?: string }[] };
const healthOf = async (engine: RunningEngine) => (await (await fetch(`${engine.url}/health`)).json()) as Health;
const integrationIdOf = (agent: PublishedAgent, whatsapp: WhatsAppTestConfig) =>
  (agent.configWith(whatsapp).integrations[0] as { id: string }).id;

/** One delivery carrying the entries of several, as Meta batches the changes of several numbers. */
function mergePayloads(...payloads: ReturnType<typeof makeWebhookPayload>[]) {
  return { object: 'whatsapp_business_account', entry: payloads.flatMap((payload) => payload.entry) };
}

beforeAll(async () => {
  database = await createTestDatabase();
  graph = await startFakeGraphApi();
});

afterAll(async () => {
  for (const engine of engines) await engine.shutdown();
  await graph?.close();
  await database?.drop();
});

describe('an integration without an app secret', () => {
  const whatsapp = makeWhatsAppConfig({ appSecret: undefined });
  let agent: PublishedAgent;
  let engine: RunningEngine;
  beforeAll(async () => {
    agent = await publishWhatsAppAgent(database, whatsapp);
    engine = await startAgentEngine(agent);
  });

  it('answers 401 problem+json to an unsigned delivery and queues nothing', async () => {
    const response = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]));
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/no appSecret/);
    expect(await queued(agent.agentId)).toEqual([]);
  });

  it('answers 401 to a delivery signed with whatever secret, since there is none to check it against', async () => {
    const payload = makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]);
    expect((await postWebhook(engine.url, payload, { appSecret: 'guessed' })).status).toBe(401);
    expect(await queued(agent.agentId)).toEqual([]);
  });

  it('still answers the verify handshake', async () => {
    const params = { 'hub.mode': 'subscribe', 'hub.verify_token': whatsapp.verifyToken, 'hub.challenge': 'ok' };
    const response = await fetch(verifyUrl(engine.url, params));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
  });

  it('is reported by /health as refusing deliveries, without any secret', async () => {
    const response = await fetch(`${engine.url}/health`);
    const text = await response.clone().text();
    for (const secret of [whatsapp.accessToken, whatsapp.verifyToken]) expect(text).not.toContain(secret);
    expect(await response.json()).toMatchObject({
      status: 'degraded',
      integrations: [
        {
          id: integrationIdOf(agent, whatsapp),
          provider: 'WHATSAPP',
          deliveries: 'refused',
          error: expect.stringMatching(/appSecret/),
        },
      ],
    });
  });
});

describe('the allowUnsignedDeliveries opt-out', () => {
  it('accepts unsigned deliveries, each logged as a warning naming the integration', async () => {
    const whatsapp = makeWhatsAppConfig({ appSecret: undefined, allowUnsignedDeliveries: true });
    const agent = await publishWhatsAppAgent(database, whatsapp);
    const logs = captureLogs();
    const engine = await startAgentEngine(agent, { logDestination: logs.destination });
    const response = await postWebhook(engine.url, makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]));
    expect(response.status).toBe(200);
    expect(await queued(agent.agentId)).toHaveLength(1);
    const warnings = logs.lines().filter((line) => line.level === 40 && /allowUnsignedDeliveries/.test(line.msg));
    expect(warnings).toEqual([expect.objectContaining({ integration_ids: [integrationIdOf(agent, whatsapp)] })]);
    const health = await healthOf(engine);
    expect(health.integrations).toEqual([
      { id: integrationIdOf(agent, whatsapp), provider: 'WHATSAPP', deliveries: 'unsigned_allowed' },
    ]);
    expect(health.status).toBe('ok');
  });

  it('changes nothing for an integration that has an app secret: unsigned deliveries stay refused', async () => {
    const whatsapp = makeWhatsAppConfig({ allowUnsignedDeliveries: true });
    const agent = await publishWhatsAppAgent(database, whatsapp);
    const engine = await startAgentEngine(agent);
    const payload = makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]);
    expect((await postWebhook(engine.url, payload)).status).toBe(401);
    expect(await queued(agent.agentId)).toEqual([]);
    expect((await postWebhook(engine.url, payload, { appSecret: whatsapp.appSecret })).status).toBe(200);
    expect((await healthOf(engine)).integrations[0]?.deliveries).toBe('signature_required');
  });
});

describe('signatures with several integrations on one agent', () => {
  // a and b belong to different Meta apps; c shares a's app, hence its secret.
  const a = makeWhatsAppConfig();
  const b = makeWhatsAppConfig();
  const c = makeWhatsAppConfig({ appSecret: a.appSecret });
  const ids = { a: randomUUID(), b: randomUUID(), c: randomUUID() };
  let agent: PublishedAgent;
  let engine: RunningEngine;
  const message = (whatsapp: WhatsAppTestConfig) => makeWebhookPayload(whatsapp.phoneNumberId, [{ from: '4915' }]);

  beforeAll(async () => {
    agent = await publishWhatsAppAgent(database, a);
    const integration = (id: string, config: WhatsAppTestConfig) => ({
      id,
      provider: 'WHATSAPP' as const,
      enabled: true,
      config,
    });
    await agent.publish({
      ...agent.configWith(a),
      integrations: [integration(ids.a, a), integration(ids.b, b), integration(ids.c, c)],
    });
    engine = await startAgentEngine(agent);
  });

  it("answers 401 to a message for b signed with a's secret, which another integration of the agent holds", async () => {
    expect((await postWebhook(engine.url, message(b), { appSecret: a.appSecret })).status).toBe(401);
    expect(await queued(agent.agentId)).toEqual([]);
  });

  it("queues a message for b signed with b's secret, under b", async () => {
    const before = new Set((await queued(agent.agentId)).map((row) => row.id));
    expect((await postWebhook(engine.url, message(b), { appSecret: b.appSecret })).status).toBe(200);
    const added = (await queued(agent.agentId)).filter((row) => !before.has(row.id));
    expect(added.map((row) => row.integrationId)).toEqual([ids.b]);
  });

  it('answers 401 to one delivery for a and b, whichever of their secrets signed it, and queues none of it', async () => {
    const before = (await queued(agent.agentId)).length;
    const both = mergePayloads(message(a), message(b));
    for (const appSecret of [a.appSecret, b.appSecret]) {
      expect((await postWebhook(engine.url, both, { appSecret })).status).toBe(401);
    }
    expect(await queued(agent.agentId)).toHaveLength(before);
  });

  it('queues one delivery for a and c, which share their app secret', async () => {
    const before = new Set((await queued(agent.agentId)).map((row) => row.id));
    const both = mergePayloads(message(a), message(c));
    expect((await postWebhook(engine.url, both, { appSecret: a.appSecret })).status).toBe(200);
    const added = (await queued(agent.agentId)).filter((row) => !before.has(row.id));
    expect(added.map((row) => row.integrationId).sort()).toEqual([ids.a, ids.c].sort());
  });

  it("acknowledges a delivery for a number the agent does not have only when one of the agent's secrets signed it", async () => {
    const before = (await queued(agent.agentId)).length;
    const stranger = makeWhatsAppConfig();
    expect((await postWebhook(engine.url, message(stranger))).status).toBe(401);
    expect((await postWebhook(engine.url, message(stranger), { appSecret: stranger.appSecret })).status).toBe(401);
    expect((await postWebhook(engine.url, message(stranger), { appSecret: b.appSecret })).status).toBe(200);
    expect(await queued(agent.agentId)).toHaveLength(before);
  });
});

describe('the size of a delivery', () => {
  const whatsapp = makeWhatsAppConfig();
  let agent: PublishedAgent;
  let engine: RunningEngine;
  beforeAll(async () => {
    agent = await publishWhatsAppAgent(database, whatsapp);
    engine = await startAgentEngine(agent);
  });

  const statuses = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ id: `wamid.out-${i}`, status: 'delivered', recipient_id: '4915' }));

  it(`answers 413 problem+json to more than ${MAX_DELIVERY_ITEMS} messages and statuses, and queues none of them`, async () => {
    const messages = Array.from({ length: 60 }, (_, i) => ({ from: `4915${i}` }));
    const payload = makeWebhookPayload(whatsapp.phoneNumberId, messages, statuses(MAX_DELIVERY_ITEMS + 1 - 60));
    const response = await postWebhook(engine.url, payload, { appSecret: whatsapp.appSecret });
    expect(response.status).toBe(413);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await response.json()) as { detail: string }).detail).toMatch(`${MAX_DELIVERY_ITEMS + 1}`);
    expect(await queued(agent.agentId)).toEqual([]);
  });

  it(`acknowledges exactly ${MAX_DELIVERY_ITEMS}`, async () => {
    const payload = makeWebhookPayload(whatsapp.phoneNumberId, [], statuses(MAX_DELIVERY_ITEMS));
    expect((await postWebhook(engine.url, payload, { appSecret: whatsapp.appSecret })).status).toBe(200);
  });
});
