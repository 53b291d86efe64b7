// The "must hold" for Discord, through real engine processes (the built dist/server.js) in
// database mode, against a local fake of Discord's API (DISCORD_API_BASE_URL) and a fake model. The test
// plays Discord: it signs each interaction, posts it to the integration's webhook, and hands the
// engine's answer to the fake API, which then holds the "thinking…" message the reply fills.
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
} from '../../testing/channel-agent.js';
import {
  askCommand,
  type DiscordApplication,
  deliverInteraction,
  makeDiscordApplication,
  pingInteraction,
  signInteraction,
} from '../../testing/discord-interactions.js';
import type { EngineProcess } from '../../testing/engine-process.js';
import { type FakeDiscordApi, startFakeDiscordApi } from '../../testing/fake-discord-api.js';
import { hold } from '../../testing/gate.js';
import { splitText } from '../split-text.js';

jest.setTimeout(120_000);

let database: TestDatabase;
let model: FakeOpenAiServer;
let discord: FakeDiscordApi;
let application: DiscordApplication;
let agent: ChannelAgent;
let engine: EngineProcess;
const processes: EngineProcess[] = [];
const releases: (() => void)[] = [];

const engineEnv = () => ({
  DISCORD_API_BASE_URL: discord.baseUrl,
  CHANNEL_POLL_MS: '50',
  CHANNEL_RETRY_BASE_MS: '20',
  CHANNEL_LEASE_MS: '3000',
});

beforeAll(async () => {
  [database, model, discord] = await Promise.all([
    createTestDatabase(),
    startFakeOpenAiServer(),
    startFakeDiscordApi(),
  ]);
  application = makeDiscordApplication();
  agent = await publishChannelAgent(
    database,
    [
      {
        provider: 'DISCORD',
        config: { applicationId: application.applicationId, publicKey: application.publicKey, botToken: 'bot-token' },
      },
    ],
    { model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl } },
  );
  engine = await startChannelEngineProcess(database, agent, engineEnv(), processes);
});

afterAll(async () => {
  for (const release of releases) release();
  for (const process of processes) await process.kill('SIGKILL');
  await Promise.all([discord?.close(), model?.close()]);
  await database?.drop();
});

const webhook = (on = engine) => channelWebhookUrl(on.url, 'discord', agent.integrations[0]?.id ?? '');
const someone = () => ({
  userId: String(100_000_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e9))),
  channelId: `${Date.now()}${Math.floor(Math.random() * 1e6)}`,
  guildId: '333333333333333333',
});
const rowsIn = async (conversation: string) =>
  (await queueRows(database, agent.agentId)).filter((row) => row.conversation === conversation);
const repliesTo = (token: string) => discord.replies().filter((message) => message.token === token);

async function waitForDone(conversation: string, count = 1) {
  await waitUntil(async () => (await rowsIn(conversation)).filter((row) => row.status === 'done').length === count, {
    what: `${count} Discord interaction(s) answered in ${conversation}`,
  });
}

describe('a Discord interaction', () => {
  it('signed, is answered in its channel: the "thinking…" message becomes the reply', async () => {
    const actor = someone();
    model.script({ text: ['Refunds take **5 days**.'] });
    const interaction = askCommand(application, actor, 'How long do refunds take?');
    const delivered = await deliverInteraction(webhook(), application, interaction, discord);
    expect(delivered).toEqual({ status: 200, answer: { type: 5 } });
    await waitForDone(actor.channelId);
    const replies = repliesTo(interaction.token);
    expect(replies.map((reply) => reply.content)).toEqual(['Refunds take **5 days**.']);
    expect(model.requests.at(-1)?.body.messages.at(-1)).toMatchObject({ content: 'How long do refunds take?' });
    const [row] = await rowsIn(actor.channelId);
    expect(row).toMatchObject({ provider: 'DISCORD', sender: actor.userId, providerMessageId: interaction.id });
  });

  it("passes Discord's endpoint check: a PING gets a PONG; an unknown integration id is a 404", async () => {
    const ping = pingInteraction(application);
    expect(await deliverInteraction(webhook(), application, ping, discord)).toEqual({
      status: 200,
      answer: { type: 1 },
    });
    const unknown = channelWebhookUrl(engine.url, 'discord', randomUUID());
    expect((await deliverInteraction(unknown, application, ping, discord)).status).toBe(404);
  });

  it('unsigned, forged, stale or replayed later, is refused with 401 and queues nothing', async () => {
    const actor = someone();
    const interaction = askCommand(application, actor, 'hello');
    const body = JSON.stringify(interaction);
    const post = (headers: Record<string, string>) =>
      fetch(webhook(), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await post({})).status).toBe(401);
    expect((await post(signInteraction(makeDiscordApplication(), body).headers)).status).toBe(401);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    expect((await post(signInteraction(application, body, sixMinutesAgo).headers)).status).toBe(401);
    const refused = await post({});
    expect(refused.headers.get('content-type')).toMatch(/problem\+json/);
    expect(await rowsIn(actor.channelId)).toEqual([]);
  });

  it('delivered twice, is answered once', async () => {
    const actor = someone();
    model.script({ text: ['only once'] });
    const requestsBefore = model.requests.length;
    const interaction = askCommand(application, actor, 'hi');
    const [first, second] = await Promise.all([
      deliverInteraction(webhook(), application, interaction, discord),
      deliverInteraction(webhook(), application, interaction, discord),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await waitForDone(actor.channelId);
    expect(await rowsIn(actor.channelId)).toHaveLength(1);
    expect(model.requests.length - requestsBefore).toBe(1);
    expect(repliesTo(interaction.token).map((reply) => reply.content)).toEqual(['only once']);
    expect(discord.calls.filter((call) => call.method === 'POST' && call.path.includes(interaction.token))).toEqual([]);
  });

  it("is retried no sooner than a 429's Retry-After", async () => {
    const actor = someone();
    // A command without text gets the fixed reply, sent once, without a run (and so without streaming).
    const interaction = { ...askCommand(application, actor, ''), data: { name: 'ask', type: 1, options: [] } };
    discord.script({ method: 'PATCH', status: 429, retryAfterSeconds: 3600 });
    await deliverInteraction(webhook(), application, interaction, discord);
    await waitUntil(async () => (await rowsIn(actor.channelId))[0]?.lastError?.includes('429') === true, {
      what: 'the 429 to be recorded',
    });
    const [row] = await rowsIn(actor.channelId);
    expect(row?.status).toBe('pending');
    // The backoff would be 20 ms: Discord's hour is the floor.
    expect((row?.nextAttemptAt.getTime() ?? 0) - (row?.updatedAt.getTime() ?? 0)).toBe(3_600_000);
    expect(repliesTo(interaction.token)).toEqual([]);
  });

  it('streams its reply into the message, then edits it into the first 2,000 characters and posts the rest', async () => {
    const actor = someone();
    const words = Array.from({ length: 450 }, (_, i) => `word${i}`);
    // The model starts once Discord holds the "thinking…" message.
    const discordAnswered = hold();
    releases.push(discordAnswered.release);
    model.script({ gate: discordAnswered.gate, turn: { text: words.map((word) => `${word} `) } });
    const interaction = askCommand(application, actor, 'talk');
    await deliverInteraction(webhook(), application, interaction, discord);
    discordAnswered.release();
    await waitForDone(actor.channelId);
    const parts = splitText(words.join(' '), 2000);
    expect(parts).toHaveLength(2);
    const [message, followUp, ...more] = repliesTo(interaction.token);
    // Streamed: shown as the agent wrote (cut to Discord's length), then edited into the first part.
    const shown = message?.contents ?? [];
    expect(shown.length).toBeGreaterThan(1);
    expect(words.join(' ').startsWith(String(shown[0]).replace(/…$/, ''))).toBe(true);
    expect(shown[0]).not.toBe(parts[0]);
    expect(message?.content).toBe(parts[0]);
    const patched = discord.calls.filter((call) => call.method === 'PATCH' && call.path.includes(interaction.token));
    expect(patched.map((call) => call.path.split('/').at(-1))).toEqual([
      '@original',
      ...patched.slice(1).map(() => message?.id),
    ]);
    expect(followUp?.contents).toEqual([parts[1]]);
    expect(more).toEqual([]);
    expect((await rowsIn(actor.channelId))[0]?.replyPartsSent).toBe(2);
  });
});

describe('an engine SIGKILLed mid-reply', () => {
  it('replies exactly once after a restart', async () => {
    const killed = await publishChannelAgent(
      database,
      [
        {
          provider: 'DISCORD',
          config: { applicationId: application.applicationId, publicKey: application.publicKey, botToken: 'bot-token' },
        },
      ],
      { model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl } },
    );
    const first = await startChannelEngineProcess(database, killed, engineEnv(), processes);
    const actor = someone();
    model.script({ text: ['exactly once'] }, { text: ['exactly once'] });
    const held = hold();
    releases.push(held.release);
    discord.script({ method: 'PATCH', status: 200, gate: held.gate });
    const interaction = askCommand(application, actor, 'hi');
    const url = channelWebhookUrl(first.url, 'discord', killed.integrations[0]?.id ?? '');
    await deliverInteraction(url, application, interaction, discord);
    await waitUntil(
      () => discord.calls.some((call) => call.method === 'PATCH' && call.path.includes(interaction.token)),
      {
        what: 'the reply to be in flight',
      },
    );
    await first.kill('SIGKILL');
    // Released only once the fake has seen the killed engine hang up, so that its PATCH is never performed
    // (released sooner, the fake could answer it before noticing, and the reply would be there twice).
    await waitUntil(
      () => discord.hungUp.some((call) => call.method === 'PATCH' && call.path.includes(interaction.token)),
      {
        what: "the killed engine's PATCH to be dropped",
      },
    );
    held.release();
    await startChannelEngineProcess(database, killed, engineEnv(), processes);
    await waitUntil(async () => (await queueRows(database, killed.agentId)).some((row) => row.status === 'done'), {
      what: 'the restarted engine to answer',
    });
    expect(repliesTo(interaction.token).map((reply) => reply.content)).toEqual(['exactly once']);
    expect(discord.calls.filter((call) => call.method === 'POST' && call.path.includes(interaction.token))).toEqual([]);
  });
});
