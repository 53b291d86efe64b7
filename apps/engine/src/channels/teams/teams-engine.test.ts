// The Teams channel through real database-mode engines (in this process, and as child processes for
// the SIGKILL), a fake model and a local fake of the Bot Framework (keys, tokens, connector): the
// issue's "Must hold" for Teams (the approval button is in teams-approval.test.ts).
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import {
  type ChannelAgent,
  channelWebhookUrl,
  publishChannelAgent,
  queueRows,
  startChannelEngine,
  startChannelEngineProcess,
  waitForQueueStatus,
} from '../../testing/channel-agent.js';
import type { EngineProcess } from '../../testing/engine-process.js';
import { type FakeTeamsApi, startFakeTeamsApi } from '../../testing/fake-teams-api.js';
import { hold } from '../../testing/gate.js';
import { makeTeamsActivity } from '../../testing/teams-activities.js';

let database: TestDatabase;
let model: FakeOpenAiServer;
let api: FakeTeamsApi;
let engines: RunningEngine[] = [];
const processes: EngineProcess[] = [];
const releases: (() => void)[] = [];

beforeAll(async () => {
  [database, model, api] = await Promise.all([createTestDatabase(), startFakeOpenAiServer(), startFakeTeamsApi()]);
});

afterEach(async () => {
  for (const engine of engines) await engine.shutdown();
  engines = [];
});

afterAll(async () => {
  for (const release of releases) release();
  for (const engine of processes) await engine.kill('SIGKILL');
  await Promise.all([api?.close(), model?.close()]);
  await database?.drop();
});

type Setup = { agent: ChannelAgent; appId: string; integrationId: string; env: Record<string, string> };

async function publish(): Promise<Setup> {
  const appId = randomUUID();
  const appPassword = `password-${randomUUID()}`;
  api.registerBot(appId, appPassword);
  const agent = await publishChannelAgent(database, [{ provider: 'TEAMS', config: { appId, appPassword } }], {
    model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
  });
  const env = {
    TEAMS_OPENID_METADATA_URL: api.openIdMetadataUrl,
    TEAMS_LOGIN_BASE_URL: api.origin,
    TEAMS_SERVICE_URL_ALLOW: api.origin,
    CHANNEL_POLL_MS: '50',
    CHANNEL_RETRY_BASE_MS: '20',
  };
  return { agent, appId, integrationId: agent.integrations[0]?.id ?? '', env };
}

async function setUp(): Promise<Setup & { engine: RunningEngine }> {
  const setup = await publish();
  const engine = await startChannelEngine(database, setup.agent, setup.env);
  engines.push(engine);
  return { ...setup, engine };
}

const newConversation = () => `19:${randomUUID()}@thread.tacv2;messageid=${Date.now()}`;

function activityFor(
  setup: Setup,
  conversationId: string,
  options: { text?: string; from?: string; value?: unknown; attachments?: unknown[] } = {},
) {
  return makeTeamsActivity({ serviceUrl: api.serviceUrl, appId: setup.appId, conversationId, text: 'hi', ...options });
}

/** Posts `activity` to the engine's Teams webhook, with the Bot Framework's token unless told otherwise. */
async function deliver(
  engineUrl: string,
  setup: Setup,
  activity: Record<string, unknown>,
  authorization?: string,
): Promise<Response> {
  const token = await api.signer.token({ appId: setup.appId, serviceUrl: activity.serviceUrl as string });
  return fetch(channelWebhookUrl(engineUrl, 'teams', setup.integrationId), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: authorization ?? `Bearer ${token}` },
    body: JSON.stringify(activity),
  });
}

const deliveredIn = (conversationId: string) => api.delivered.filter((call) => call.conversationId === conversationId);

/** The conversation got one message, 'Let me look.', and then only edits of it: returns the edits. */
function editsOfOnePost(conversationId: string) {
  const [post, ...edits] = deliveredIn(conversationId);
  expect(post).toMatchObject({ method: 'POST', body: { text: 'Let me look.' } });
  expect(edits.length).toBeGreaterThan(0);
  expect(edits.every((call) => call.method === 'PUT' && call.activityId === post?.replyId)).toBe(true);
  return edits;
}

describe('a Teams message signed by the Bot Framework', () => {
  it('is answered in its thread: a reply to the activity in its conversation, with the bot token', async () => {
    const setup = await setUp();
    const conversation = newConversation();
    model.script({ text: ['Hello ', 'from the agent'] });
    const activity = activityFor(setup, conversation, { text: 'hi' });
    expect((await deliver(setup.engine.url, setup, activity)).status).toBe(200);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const calls = deliveredIn(conversation);
    expect(calls[0]).toMatchObject({ method: 'POST', activityId: activity.id, appId: setup.appId });
    expect(calls.at(-1)?.body.text).toBe('Hello from the agent');
  });

  it('delivered twice gives one reply', async () => {
    const setup = await setUp();
    const conversation = newConversation();
    model.script({ text: ['only once'] });
    const activity = activityFor(setup, conversation);
    const answers = await Promise.all([1, 2, 3].map(() => deliver(setup.engine.url, setup, activity)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    expect(await queueRows(database, setup.agent.agentId)).toHaveLength(1);
    expect(deliveredIn(conversation).filter((call) => call.method === 'POST')).toHaveLength(1);
  });
});

describe('a Teams delivery that is not proven', () => {
  it("is refused with 401 and nothing queued: unsigned, stale (expired token), another bot's, forged", async () => {
    const setup = await setUp();
    const activity = activityFor(setup, newConversation());
    const now = Math.floor(Date.now() / 1000);
    const stale = await api.signer.token({
      appId: setup.appId,
      serviceUrl: api.serviceUrl,
      issuedAt: now - 7200,
      expiresAt: now - 3600,
    });
    const otherBot = await api.signer.token({ appId: randomUUID(), serviceUrl: api.serviceUrl });
    for (const authorization of ['', 'Bearer nope', `Bearer ${stale}`, `Bearer ${otherBot}`]) {
      const answer = await deliver(setup.engine.url, setup, activity, authorization);
      expect(answer.status).toBe(401);
      expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    expect(await queueRows(database, setup.agent.agentId)).toEqual([]);
  });
});

describe('a Teams reply', () => {
  it('streams as edits of the message it posted first', async () => {
    const setup = await setUp();
    const conversation = newConversation();
    // The model's first turn shows text and calls a tool; its second turn waits for the test, so the
    // text of the first is posted before the rest of the answer exists.
    const secondTurn = hold();
    releases.push(secondTurn.release);
    model.script(
      { text: ['Let me look.'], toolCalls: [{ id: 'call-1', name: 'no_such_tool', arguments: ['{}'] }] },
      { gate: secondTurn.gate, turn: { text: [' Found ', 'it.'] } },
    );
    await deliver(setup.engine.url, setup, activityFor(setup, conversation));
    await waitUntil(() => deliveredIn(conversation).length > 0, { what: 'the first text to be posted' });
    secondTurn.release();
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const edits = editsOfOnePost(conversation);
    expect(edits.at(-1)?.body.text).toBe('Let me look.\n\nFound it.');
  });

  it("waits at least as long as a 429's Retry-After before it is sent again", async () => {
    const setup = await setUp();
    const conversation = newConversation();
    api.script({ status: 429, headers: { 'Retry-After': '3600' } });
    // An image alone: the agent cannot read it, so the reply is the fixed one, sent in one call.
    const image = { contentType: 'image/png', contentUrl: `${api.serviceUrl}v3/attachments/1/views/original` };
    await deliver(setup.engine.url, setup, activityFor(setup, conversation, { text: undefined, attachments: [image] }));
    await waitUntil(async () => (await queueRows(database, setup.agent.agentId))[0]?.lastError != null, {
      what: 'the 429 to be recorded',
    });
    const [row] = await queueRows(database, setup.agent.agentId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, replyPartsSent: 0 });
    expect(row?.lastError).toMatch(/HTTP 429/);
    // The backoff would be 20 ms: Teams's hour is the floor.
    expect((row?.nextAttemptAt.getTime() ?? 0) - (row?.updatedAt.getTime() ?? 0)).toBe(3_600_000);
    expect(api.calls.filter((call) => call.conversationId === conversation)).toHaveLength(1);
  });
});

describe('an engine SIGKILLed mid-reply', () => {
  it('replies exactly once after a restart: it edits the message it had posted, never posts another', async () => {
    const setup = await publish();
    const env = { ...setup.env, CHANNEL_LEASE_MS: '120000', TEAMS_API_TIMEOUT_MS: '120000' };
    const conversation = newConversation();
    const [secondTurn, editHeld] = [hold(), hold()];
    releases.push(secondTurn.release, editHeld.release);
    // The post is answered; the edit that follows is held: the engine is killed while it waits on it.
    api.script({ status: 201 }, { status: 200, gate: editHeld.gate });
    model.script(
      { text: ['Let me look.'], toolCalls: [{ id: 'call-1', name: 'no_such_tool', arguments: ['{}'] }] },
      { gate: secondTurn.gate, turn: { text: [' Found it.'] } },
    );
    const requestsBefore = model.requests.length;
    const first = await startChannelEngineProcess(database, setup.agent, env, processes);
    await deliver(first.url, setup, activityFor(setup, conversation));
    await waitUntil(() => deliveredIn(conversation).length === 1, { what: 'the first text to be posted' });
    secondTurn.release();
    await waitUntil(() => api.calls.some((call) => call.conversationId === conversation && call.method === 'PUT'), {
      what: 'the engine to wait on its edit',
    });
    await first.kill('SIGKILL');
    // The killed engine's lease would run out after CHANNEL_LEASE_MS; the test ends it now.
    await database.prisma.inboundMessage.updateMany({
      where: { agentId: setup.agent.agentId, status: 'processing' },
      data: { lockedUntil: new Date(0) },
    });
    await startChannelEngineProcess(database, setup.agent, env, processes);
    await waitForQueueStatus(database, setup.agent.agentId, 'done');
    const edits = editsOfOnePost(conversation);
    // The run had ended before the kill: its stored answer is delivered, the agent is not run again.
    expect(edits.at(-1)?.body.text).toBe('Let me look.\n\nFound it.');
    expect(model.requests.length - requestsBefore).toBe(2);
  });
});
