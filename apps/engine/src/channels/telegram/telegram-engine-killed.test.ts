// Fault test: Telegram engines SIGKILLed, as real processes, mid-reply. One is killed while Telegram
// holds its first post unanswered, another after its post was shown and its id saved, while the model
// still streams. After a restart each chat has exactly one message from the bot: the first is posted
// once (an answer to a dead connection is not a delivery), the second is edited into the whole reply,
// never posted again.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  channelWebhookUrl,
  publishChannelAgent,
  queueRows,
  startChannelEngineProcess,
} from '../../testing/channel-agent.js';
import type { EngineProcess } from '../../testing/engine-process.js';
import { type FakeTelegramApi, startFakeTelegramApi } from '../../testing/fake-telegram-api.js';
import { type Gate, hold } from '../../testing/gate.js';
import { telegramTextUpdate, telegramWebhookHeaders } from '../../testing/telegram-updates.js';

jest.setTimeout(120_000);

const FIXED_REPLY = 'Text only, please.';

let database: TestDatabase;
let model: FakeOpenAiServer;
let telegram: FakeTelegramApi;
const processes: EngineProcess[] = [];
const gates: Gate[] = [];

beforeAll(async () => {
  [database, model, telegram] = await Promise.all([
    createTestDatabase(),
    startFakeOpenAiServer(),
    startFakeTelegramApi(),
  ]);
});

afterAll(async () => {
  for (const gate of gates) gate.release();
  for (const engine of processes) await engine.kill('SIGKILL');
  await telegram?.close();
  await model?.close();
  await database?.drop();
});

const messagesIn = (chatId: number) =>
  [...telegram.messages.values()].filter((message) => message.chatId === String(chatId));

async function setUp() {
  const secretToken = `secret_${randomUUID().replaceAll('-', '')}`;
  const agent = await publishChannelAgent(
    database,
    [{ provider: 'TELEGRAM', config: { botToken: `9${Date.now() % 1_000_000}:${randomUUID()}`, secretToken } }],
    { model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl } },
  );
  const env = {
    TELEGRAM_API_BASE_URL: telegram.baseUrl,
    CHANNEL_POLL_MS: '50',
    CHANNEL_UNSUPPORTED_MESSAGE_REPLY: FIXED_REPLY,
    // Neither a held call nor a claim runs out while the test looks: nothing but the kill acts.
    TELEGRAM_API_TIMEOUT_MS: '120000',
    CHANNEL_LEASE_MS: '120000',
  };
  const start = () => startChannelEngineProcess(database, agent, env, processes);
  const deliver = (engine: EngineProcess, update: unknown) =>
    fetch(channelWebhookUrl(engine.url, 'telegram', agent.integrations[0]?.id ?? ''), {
      method: 'POST',
      headers: telegramWebhookHeaders(secretToken),
      body: JSON.stringify(update),
    });
  /** The killed engine's lease would run out after CHANNEL_LEASE_MS: the test ends it now instead. */
  const expireLeases = () =>
    database.prisma.inboundMessage.updateMany({
      where: { agentId: agent.agentId, status: 'processing' },
      data: { lockedUntil: new Date(0) },
    });
  const allDone = () =>
    waitUntil(async () => (await queueRows(database, agent.agentId)).every((row) => row.status === 'done'), {
      what: 'the message to be answered after the restart',
      timeoutMs: 60_000,
    });
  return { agent, start, deliver, expireLeases, allDone };
}

describe('an engine SIGKILLed mid-reply', () => {
  it('whose first post Telegram holds unanswered posts the reply once after a restart', async () => {
    const setup = await setUp();
    const gate = hold();
    gates.push(gate);
    telegram.script('sendMessage', { gate: gate.gate });
    // A sticker: the fixed reply, posted without a run, so nothing but the held post is in flight.
    const sticker = telegramTextUpdate({ updateId: 1, text: '', chatId: 8101 });
    const message = sticker.message as Record<string, unknown>;
    delete message.text;
    message.sticker = { file_id: 'sticker' };
    const engine = await setup.start();
    expect((await setup.deliver(engine, sticker)).status).toBe(200);
    await waitUntil(
      () => telegram.calls.some((call) => call.method === 'sendMessage' && call.body.chat_id === '8101'),
      {
        what: 'the post to be held',
        timeoutMs: 60_000,
      },
    );
    await engine.kill('SIGKILL');
    await setup.expireLeases();
    await setup.start();
    await setup.allDone();
    expect(messagesIn(8101).map((shown) => shown.text)).toEqual([FIXED_REPLY]);
  });

  it('after its post was shown edits that message into the whole reply, never posting another', async () => {
    const setup = await setUp();
    // The first run shows its first words and stalls; the rerun after the restart completes.
    model.script({ stall: ['Partial'] }, { text: ['Partial', ' answer, complete.'] });
    const engine = await setup.start();
    await setup.deliver(engine, telegramTextUpdate({ updateId: 1, text: 'hi', chatId: 8102 }));
    const saved = async () => (await queueRows(database, setup.agent.agentId))[0]?.replyState != null;
    await waitUntil(saved, { what: "the posted message's id to be saved", timeoutMs: 60_000 });
    expect(messagesIn(8102).map((message) => message.text)).toEqual(['Partial']);
    await engine.kill('SIGKILL');
    await setup.expireLeases();
    await setup.start();
    await setup.allDone();
    const [message, ...others] = messagesIn(8102);
    expect(others).toEqual([]);
    expect(message?.versions).toEqual(['Partial', 'Partial answer, complete.']);
  });
});
