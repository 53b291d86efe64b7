// Human in the loop on Discord, through a real engine: a tool call the policy wants approved pauses the
// run and fills the command's "thinking…" message with Approve and Reject buttons; another member's
// press is answered to them alone and queued nowhere; the asker's takes the buttons off and resumes the
// run, whose answer follows in the channel.
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type ApprovalChannel,
  lastToolResult,
  scriptSumThenAnswer,
  startApprovalChannel,
} from '../../testing/approval-channel-agent.js';
import { queueRows, waitForQueueStatus } from '../../testing/channel-agent.js';
import {
  askCommand,
  buttonPress,
  type DiscordApplication,
  deliverInteraction,
  makeDiscordApplication,
  nextSnowflake,
} from '../../testing/discord-interactions.js';
import { type FakeDiscordApi, type FakeDiscordMessage, startFakeDiscordApi } from '../../testing/fake-discord-api.js';

let database: TestDatabase;
let model: FakeOpenAiServer;
let discord: FakeDiscordApi;
let application: DiscordApplication;
let channel: ApprovalChannel;

beforeAll(async () => {
  [database, model, discord] = await Promise.all([
    createTestDatabase(),
    startFakeOpenAiServer(),
    startFakeDiscordApi(),
  ]);
  application = makeDiscordApplication();
  const { applicationId, publicKey } = application;
  channel = await startApprovalChannel(database, {
    model,
    integration: { provider: 'DISCORD', config: { applicationId, publicKey, botToken: 'bot-token' } },
    slug: 'discord',
    env: { DISCORD_API_BASE_URL: discord.baseUrl },
  });
});

afterAll(async () => {
  await channel?.engine.shutdown();
  await Promise.all([discord?.close(), model?.close()]);
  await database?.drop();
});

const buttonsOf = (message: FakeDiscordMessage | undefined) =>
  (message?.components ?? []).flatMap((row) => row.components ?? []);

describe('a tool call that needs approval on Discord', () => {
  it('asks with buttons; only the member who asked resumes the run with a press', async () => {
    const channelId = nextSnowflake();
    const asker = { userId: nextSnowflake(), channelId, guildId: '333333333333333333' };
    const other = { ...asker, userId: nextSnowflake() };
    scriptSumThenAnswer(model, [2, 3], ['The sum is ', '**5**']);
    const question = askCommand(application, asker, 'add 2 and 3');
    expect((await deliverInteraction(channel.webhook, application, question, discord)).status).toBe(200);
    const approvalMessage = () =>
      discord.messages.find((message) => message.token === question.token && buttonsOf(message).length > 0);
    await waitUntil(() => approvalMessage() !== undefined, { what: 'the approval message to be posted' });
    const message = approvalMessage() as FakeDiscordMessage;
    const [approve, reject] = buttonsOf(message);
    expect([approve?.label, reject?.label]).toEqual(['Approve', 'Reject']);
    expect(message.content).toContain(`<@${asker.userId}>`);
    await waitForQueueStatus(database, channel.agent.agentId, 'done');
    const requestsWhilePaused = model.requests.length;
    const pressBy = (actor: typeof asker) => buttonPress(application, actor, message, String(approve?.custom_id));
    const deliver = (press: ReturnType<typeof pressBy>) =>
      deliverInteraction(channel.webhook, application, press, discord);

    // The other member is told, privately, that only the asker can answer; nothing is queued.
    const refused = await deliver(pressBy(other));
    expect(refused).toMatchObject({ status: 200, answer: { type: 4, data: { flags: 64 } } });
    expect(refused.answer?.data?.content).toContain(`<@${asker.userId}>`);
    expect((await queueRows(database, channel.agent.agentId)).map((row) => row.sender)).toEqual([asker.userId]);
    expect(buttonsOf(message)).toHaveLength(2);
    expect(model.requests.length).toBe(requestsWhilePaused);

    // The asker's press takes the buttons off the message and resumes the run: the tool runs and the
    // agent's answer follows the approval message.
    const press = pressBy(asker);
    const accepted = await deliver(press);
    expect(accepted).toMatchObject({ status: 200, answer: { type: 7, data: { components: [] } } });
    expect(buttonsOf(message)).toEqual([]);
    await waitForQueueStatus(database, channel.agent.agentId, 'done', 2);
    expect(discord.replies().filter((reply) => reply.token === press.token).map((reply) => reply.content)).toEqual([
      'The sum is **5**',
    ]);
    expect(lastToolResult(model)).toMatch(/5/);
  });
});
