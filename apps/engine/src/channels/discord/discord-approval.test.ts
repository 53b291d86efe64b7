// Human in the loop on Discord, through a real engine: a tool call the policy wants approved pauses the
// run and fills the command's "thinking…" message with Approve and Reject buttons; another member's
// press is answered to them alone and queued nowhere; the asker's takes the buttons off and resumes the
// run, whose answer follows in the channel.
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ApprovalChannel, startApprovalChannel } from '../../testing/approval-channel-agent.js';
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

let discord: FakeDiscordApi;
let application: DiscordApplication;
let channel: ApprovalChannel;

beforeAll(async () => {
  discord = await startFakeDiscordApi();
  application = makeDiscordApplication();
  const { applicationId, publicKey } = application;
  channel = await startApprovalChannel({
    integration: { provider: 'DISCORD', config: { applicationId, publicKey, botToken: 'bot-token' } },
    slug: 'discord',
    env: { DISCORD_API_BASE_URL: discord.baseUrl },
  });
});

afterAll(async () => {
  await channel?.close();
  await discord?.close();
});

const buttonsOf = (message: FakeDiscordMessage | undefined) =>
  (message?.components ?? []).flatMap((row) => row.components ?? []);

describe('a tool call that needs approval on Discord', () => {
  it('asks with buttons; only the member who asked resumes the run with a press', async () => {
    const channelId = nextSnowflake();
    const asker = { userId: nextSnowflake(), channelId, guildId: '333333333333333333' };
    const other = { ...asker, userId: nextSnowflake() };
    channel.scriptSumThenAnswer([2, 3], ['The sum is ', '**5**']);
    const question = askCommand(application, asker, 'add 2 and 3');
    expect((await deliverInteraction(channel.webhook, application, question, discord)).status).toBe(200);
    const approvalMessage = () =>
      discord.messages.find((message) => message.token === question.token && buttonsOf(message).length > 0);
    await waitUntil(() => approvalMessage() !== undefined, { what: 'the approval message to be posted' });
    const message = approvalMessage() as FakeDiscordMessage;
    const [approve, reject] = buttonsOf(message);
    expect([approve?.label, reject?.label]).toEqual(['Approve', 'Reject']);
    expect(message.content).toContain(`<@${asker.userId}>`);
    await waitForQueueStatus(channel.database, channel.agent.agentId, 'done');
    const pressBy = (actor: typeof asker) => buttonPress(application, actor, message, String(approve?.custom_id));
    const deliver = (press: ReturnType<typeof pressBy>) =>
      deliverInteraction(channel.webhook, application, press, discord);

    // The other member is told, privately, that only the asker can answer; nothing is queued, the
    // buttons stay.
    const refused = await deliver(pressBy(other));
    expect(refused).toMatchObject({ status: 200, answer: { type: 4, data: { flags: 64 } } });
    expect(refused.answer?.data?.content).toContain(`<@${asker.userId}>`);
    const queued = await queueRows(channel.database, channel.agent.agentId);
    expect(queued.map((row) => row.sender)).toEqual([asker.userId]);
    expect(buttonsOf(message)).toHaveLength(2);

    // The asker's press takes the buttons off the message (the webhook's answer updates it) and
    // resumes the run: the tool runs and the agent's answer follows, through the press's token.
    const press = pressBy(asker);
    await channel.expectResumes(() => deliver(press));
    expect(buttonsOf(message)).toEqual([]);
    const answers = discord.replies().filter((reply) => reply.token === press.token);
    expect(answers.map((reply) => reply.content)).toEqual(['The sum is **5**']);
  });
});
