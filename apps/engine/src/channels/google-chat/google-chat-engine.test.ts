// Google Chat end to end, through real engine processes (dist/server.js) against a local fake of
// Google (key sets, token endpoint, Chat API): a signed event is answered in its thread; an unsigned,
// forged or stale one is refused and a replayed one is not queued again; a 429's Retry-After is the
// floor of the retry; a streamed reply arrives as edits of one message; and an engine SIGKILLed while
// its reply is in flight answers exactly once after a restart.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  type ChannelAgent,
  channelWebhookUrl,
  publishChannelAgent,
  queueRows,
  startChannelEngineProcess,
  waitForQueueStatus,
} from '../../testing/channel-agent.js';
import type { EngineProcess } from '../../testing/engine-process.js';
import { type FakeGoogleChatApi, startFakeGoogleChatApi } from '../../testing/fake-google-chat-api.js';
import { type Gate, hold } from '../../testing/gate.js';
import { chatMessageEvent } from '../../testing/google-chat-events.js';
import { PROJECT_NUMBER } from './google-chat-test-fixtures.js';

jest.setTimeout(120_000);

let database: TestDatabase;
let google: FakeGoogleChatApi;
let model: FakeOpenAiServer;
const processes: EngineProcess[] = [];
const gates: Gate[] = [];

beforeAll(async () => {
  [database, google, model] = await Promise.all([
    createTestDatabase(),
    startFakeGoogleChatApi(),
    startFakeOpenAiServer(),
  ]);
});

afterAll(async () => {
  for (const gate of gates) gate.release();
  for (const engine of processes) await engine.kill('SIGKILL');
  await Promise.all([google?.close(), model?.close()]);
  await database?.drop();
});

type Setup = { agent: ChannelAgent; engine: EngineProcess; webhook: string; env: Record<string, string> };

async function setUp(options: { streamingModel?: boolean; env?: Record<string, string> } = {}): Promise<Setup> {
  const account = await google.addServiceAccount();
  const agent = await publishChannelAgent(
    database,
    [
      {
        provider: 'GOOGLE_CHAT',
        config: {
          audience: PROJECT_NUMBER,
          serviceAccountEmail: account.email,
          serviceAccountPrivateKey: account.privateKey,
        },
      },
    ],
    options.streamingModel === true ? { model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl } } : {},
  );
  const env = { ...google.env, CHANNEL_POLL_MS: '50', CHANNEL_RETRY_BASE_MS: '20', ...options.env };
  const engine = await startChannelEngineProcess(database, agent, env, processes);
  const webhook = channelWebhookUrl(engine.url, 'google-chat', agent.integrations[0]?.id ?? '');
  return { agent, engine, webhook, env };
}

const post = (webhook: string, event: unknown, authorization?: string) =>
  fetch(webhook, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(authorization === undefined ? {} : { Authorization: authorization }),
    },
    body: JSON.stringify(event),
  });

const signed = () => google.signDelivery({ audience: PROJECT_NUMBER });
const newSpace = () => `spaces/S${randomUUID().replaceAll('-', '').slice(0, 12)}`;
const callsIn = (space: string) => google.calls.filter((call) => call.path.startsWith(`/v1/${space}/`));
const deliveredIn = (space: string) => google.delivered.filter((call) => call.path.startsWith(`/v1/${space}/`));

let plain: Setup;
beforeAll(async () => {
  plain = await setUp();
});

describe('a Google Chat message', () => {
  it('signed by Google is answered in its thread, as the service account', async () => {
    const space = newSpace();
    const event = chatMessageEvent('hello', { space, messageName: `${space}/messages/A.A` });
    const response = await post(plain.webhook, event, await signed());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    await waitForQueueStatus(database, plain.agent.agentId, 'done');
    const [reply] = deliveredIn(space);
    expect(reply).toMatchObject({
      method: 'POST',
      query: { messageReplyOption: 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD' },
      body: { thread: { name: `${space}/threads/T1` } },
    });
    const shown = [...google.messages].filter(([name]) => name.startsWith(space)).map(([, text]) => text);
    expect(shown).toEqual(['You said: hello']);
  });

  it('unsigned, forged, foreign or stale is refused with 401 and nothing is queued', async () => {
    const before = (await queueRows(database, plain.agent.agentId)).length;
    const space = newSpace();
    const event = chatMessageEvent('let me in', { space, messageName: `${space}/messages/B.B` });
    const longAgo = Math.floor(Date.now() / 1000) - 7200;
    for (const authorization of [
      undefined,
      'Bearer forged',
      await google.signDelivery({ audience: PROJECT_NUMBER, foreignKey: true }),
      await google.signDelivery({ audience: '999' }),
      await google.signDelivery({ audience: PROJECT_NUMBER, issuedAt: longAgo }),
    ]) {
      const response = await post(plain.webhook, event, authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/problem\+json/);
    }
    expect(await queueRows(database, plain.agent.agentId)).toHaveLength(before);
    expect(callsIn(space)).toEqual([]);
  });

  it('delivered twice (a replay of the same signed event) is queued and answered once', async () => {
    const space = newSpace();
    const event = chatMessageEvent('once', { space, messageName: `${space}/messages/C.C` });
    const token = await signed();
    expect((await post(plain.webhook, event, token)).status).toBe(200);
    expect((await post(plain.webhook, event, token)).status).toBe(200);
    await waitUntil(() => deliveredIn(space).length > 0, { what: 'the reply' });
    const rows = (await queueRows(database, plain.agent.agentId)).filter(
      (row) => row.providerMessageId === `${space}/messages/C.C`,
    );
    expect(rows).toHaveLength(1);
    await waitForQueueStatus(
      database,
      plain.agent.agentId,
      'done',
      (await queueRows(database, plain.agent.agentId)).length,
    );
    expect(deliveredIn(space).filter((call) => call.method === 'POST')).toHaveLength(1);
  });

  it("is sent again no sooner than a 429's Retry-After, then once", async () => {
    const space = newSpace();
    // Twice: the streamed post, whose failure the worker leaves to the final delivery, then that one.
    // (The final delivery does not yet wait out the streamed post's Retry-After: a gap of the reply stream.)
    google.script({ status: 429, headers: { 'Retry-After': '1' } }, { status: 429, headers: { 'Retry-After': '1' } });
    const event = chatMessageEvent('busy?', { space, messageName: `${space}/messages/D.D` });
    await post(plain.webhook, event, await signed());
    const rowOf = async () =>
      (await queueRows(database, plain.agent.agentId)).find((row) => row.providerMessageId === `${space}/messages/D.D`);
    await waitUntil(async () => (await rowOf())?.lastError != null, { what: 'the 429 to be recorded' });
    const retried = await rowOf();
    expect(retried?.lastError).toMatch(/HTTP 429/);
    // The backoff would be 20 ms: Google's second is the floor.
    expect((retried?.nextAttemptAt.getTime() ?? 0) - (retried?.updatedAt.getTime() ?? 0)).toBe(1000);
    await waitUntil(async () => (await rowOf())?.status === 'done', { what: 'the retry to be answered' });
    expect(callsIn(space).map((call) => call.method)).toEqual(['POST', 'POST', 'POST']);
    expect(deliveredIn(space)).toHaveLength(1);
  });
});

describe('a streamed Google Chat reply', () => {
  it('arrives as edits of the one message it posted, ending as the formatted reply', async () => {
    const setup = await setUp({ streamingModel: true });
    const space = newSpace();
    // Three chunks: the first text is posted, the later ones edit it.
    model.script({ text: ['Hello', ' **there**', ', friend'] });
    await post(setup.webhook, chatMessageEvent('hi', { space, messageName: `${space}/messages/E.E` }), await signed());
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const calls = deliveredIn(space);
    const [first, ...later] = calls;
    expect(first?.method).toBe('POST');
    const name = [...google.messages.keys()].find((key) => key.startsWith(space)) ?? '';
    expect(later.every((call) => call.method === 'PATCH' && call.path === `/v1/${name}`)).toBe(true);
    expect(google.messages.get(name)).toBe('Hello *there*, friend');
  });
});

describe('an engine SIGKILLed while its Google Chat reply is in flight', () => {
  it('replies exactly once after a restart', async () => {
    const gate = hold();
    gates.push(gate);
    const setup = await setUp({ env: { GOOGLE_CHAT_API_TIMEOUT_MS: '120000', CHANNEL_LEASE_MS: '120000' } });
    const space = newSpace();
    google.script({ status: 200, gate: gate.gate });
    await post(
      setup.webhook,
      chatMessageEvent('survive', { space, messageName: `${space}/messages/F.F` }),
      await signed(),
    );
    await waitUntil(() => callsIn(space).length === 1, { what: 'the reply to be held at the Chat API' });
    await setup.engine.kill('SIGKILL');
    // The killed engine's lease would run out after CHANNEL_LEASE_MS; the test ends it now.
    await database.prisma.inboundMessage.updateMany({
      where: { agentId: setup.agent.agentId, status: 'processing' },
      data: { lockedUntil: new Date(0) },
    });
    await startChannelEngineProcess(database, setup.agent, setup.env, processes);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    // The held answer never reached the killed engine (its connection is gone): one reply was shown.
    expect(deliveredIn(space).filter((call) => call.method === 'POST')).toHaveLength(1);
    const shown = [...google.messages].filter(([name]) => name.startsWith(space)).map(([, text]) => text);
    expect(shown).toEqual(['You said: survive']);
  });
});
