// Fault test: engines SIGKILLed, as real processes, while 100 WhatsApp messages are queued and two are
// provably mid-processing (their replies held open at the fake Graph API). After a restart every
// message gets exactly one reply. The only way to get two is the window between Graph's 200 and the
// engine recording it (docs/pages/channels/whatsapp.md, "WhatsApp delivery guarantees"); the test counts the messages in that window,
// and there are none here: each engine was killed while waiting for Graph, with every earlier 200
// recorded, since an engine records a part before it sends the next one.
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type EngineProcess, startServingEngineProcess } from '../testing/engine-process.js';
import { type FakeGraphApi, startFakeGraphApi } from '../testing/fake-graph-api.js';
import { type Gate, hold } from '../testing/gate.js';
import { engineCredentialsFor } from '../testing/test-engine.js';
import {
  makeWebhookPayload,
  makeWhatsAppConfig,
  postWebhook,
  publishWhatsAppAgent,
  type TextMessage,
} from '../testing/whatsapp-agent.js';
import { splitText } from './split-text.js';

jest.setTimeout(180_000);

const MESSAGES = 100;
const SENDERS = 25;
/** Replies answered 200 before the two held ones: the engines are well into the queue when killed. */
const ANSWERED_BEFORE_HOLD = 30;

let database: TestDatabase;
let graph: FakeGraphApi;
const processes: EngineProcess[] = [];
const gates: Gate[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  graph = await startFakeGraphApi();
});

afterAll(async () => {
  for (const gate of gates) gate.release();
  for (const engine of processes) await engine.kill('SIGKILL');
  await graph?.close();
  await database?.drop();
});

const startServingEngine = (env: Record<string, string>) => startServingEngineProcess(env, processes);

/** Each message from one of SENDERS senders, every seventh long enough to be sent in two parts. */
function makeMessages(): Required<Pick<TextMessage, 'from' | 'text'>>[] {
  return Array.from({ length: MESSAGES }, (_, i) => ({
    from: `4917200${String(i % SENDERS).padStart(5, '0')}`,
    text: i % 7 === 0 ? `message ${i} ${Array.from({ length: 700 }, (_, w) => `word${w}`).join(' ')}` : `message ${i}`,
  }));
}

describe('an engine SIGKILLed with WhatsApp messages queued and in flight', () => {
  it('answers every message exactly once after a restart', async () => {
    const whatsapp = makeWhatsAppConfig();
    const agent = await publishWhatsAppAgent(database, whatsapp);
    const env = {
      ...(await engineCredentialsFor(database, agent.agentId)),
      GRAPH_API_BASE_URL: graph.baseUrl,
      WHATSAPP_POLL_MS: '50',
      // Neither the held replies nor the claims run out while the test looks: nothing but the kill acts.
      GRAPH_API_TIMEOUT_MS: '120000',
      WHATSAPP_LEASE_MS: '120000',
    };
    gates.push(hold(), hold());
    graph.script(
      whatsapp.phoneNumberId,
      ...Array.from({ length: ANSWERED_BEFORE_HOLD }, () => ({ status: 200 })),
      ...gates.map((gate) => ({ status: 200, gate: gate.gate })),
    );
    const messages = makeMessages();
    const rows = () => database.prisma.inboundMessage.findMany({ where: { agentId: agent.agentId } });

    // Queued before any engine runs, so that all 100 wait while the first ones are answered.
    const receiver = await startServingEngine(env);
    const accepted = await postWebhook(receiver.url, makeWebhookPayload(whatsapp.phoneNumberId, messages), {
      appSecret: whatsapp.appSecret,
    });
    expect(accepted.status).toBe(200);
    const second = await startServingEngine(env);
    // An engine waits for one reply at a time, so the two held requests are one per engine: both are
    // stuck mid-message.
    await waitUntil(() => graph.requests.length === ANSWERED_BEFORE_HOLD + gates.length, {
      what: 'both engines to wait on a held reply',
      timeoutMs: 120_000,
    });
    // The held replies stay held (released after the test): an answer to a dead connection is not a
    // delivery, and must not race the fake's noticing that the connection closed.
    await Promise.all([receiver.kill('SIGKILL'), second.kill('SIGKILL')]);

    const atKill = await rows();
    const count = (status: string) => atKill.filter((row) => row.status === status).length;
    expect(atKill).toHaveLength(MESSAGES);
    expect(count('processing')).toBe(2);
    expect(count('pending')).toBeGreaterThan(0);

    // The killed engines' leases would run out after WHATSAPP_LEASE_MS; the test ends them now
    // instead of waiting that long.
    await database.prisma.inboundMessage.updateMany({
      where: { agentId: agent.agentId, status: 'processing' },
      data: { lockedUntil: new Date(0) },
    });
    await startServingEngine(env);
    await waitUntil(async () => (await rows()).every((row) => row.status === 'done'), {
      what: `all ${MESSAGES} messages to be answered after the restart`,
      timeoutMs: 120_000,
    });

    // Every part of every reply, by recipient and text, and how often WhatsApp got it.
    const deliveries = new Map<string, number>();
    for (const request of graph.delivered) {
      const key = `${request.body.to}|${request.body.text?.body}`;
      deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
    }
    const expected = messages.flatMap((message) =>
      splitText(`You said: ${message.text}`).map((part) => `${message.from}|${part}`),
    );
    const missing = expected.filter((key) => !deliveries.has(key));
    const inWindow = expected.filter((key) => (deliveries.get(key) ?? 0) > 1);
    expect(missing).toEqual([]);
    expect(inWindow).toHaveLength(0);
    expect(graph.delivered).toHaveLength(expected.length);
  });
});
