// Human in the loop on Slack, through a real engine: a tool call the policy wants approved pauses the
// run and becomes a Block Kit message with Approve and Reject in the thread; a press by the person who
// asked resumes the run, anyone else's does not.
import { randomUUID } from 'node:crypto';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type ApprovalChannel, startApprovalChannel } from '../../testing/approval-channel-agent.js';
import { type FakeSlackApi, type SlackMessage, startFakeSlackApi } from '../../testing/fake-slack-api.js';
import {
  blockActionsRequest,
  messageEventRequest,
  nextSlackTs,
  postSlackRequest,
} from '../../testing/slack-deliveries.js';

const botToken = `xoxb-${randomUUID()}`;
const appId = 'A0APPROVE01';
const ALICE = 'U0ALICE0001';
const BOB = 'U0BOB000001';
const signingSecret = `signing-${randomUUID()}`;

let slack: FakeSlackApi;
let channel: ApprovalChannel;

beforeAll(async () => {
  slack = await startFakeSlackApi({ botToken });
  channel = await startApprovalChannel({
    integration: { provider: 'SLACK', config: { botToken, signingSecret, appId } },
    slug: 'slack',
    env: { SLACK_API_BASE_URL: slack.baseUrl },
  });
});

afterAll(async () => {
  await channel?.close();
  await slack?.close();
});

type Button = { action_id: string; value: string };
const buttonsOf = (message: SlackMessage | undefined): Button[] =>
  ((message?.blocks ?? []) as { type: string; elements?: Button[] }[]).find((block) => block.type === 'actions')
    ?.elements ?? [];

const press = (user: string, button: Button, message: SlackMessage) =>
  postSlackRequest(
    channel.webhook,
    blockActionsRequest({
      appId,
      user,
      channel: message.channel,
      messageTs: message.ts,
      threadTs: message.threadTs,
      actionId: button.action_id,
      value: button.value,
    }),
    { signingSecret },
  );

describe('a tool call that needs approval on Slack', () => {
  it('asks in the thread with buttons; only the person who asked resumes the run with a press', async () => {
    const conversation = 'C0APPROVAL1';
    const ts = nextSlackTs();
    channel.scriptSumThenAnswer([2, 3], ['The sum is ', '**5**']);
    const question = messageEventRequest({ appId, channel: conversation, ts, user: ALICE, text: 'add 2 and 3' });
    expect((await postSlackRequest(channel.webhook, question, { signingSecret })).status).toBe(200);
    const approvalMessage = () =>
      slack.messages().find((message) => message.channel === conversation && message.blocks !== undefined);
    await waitUntil(() => approvalMessage() !== undefined, { what: 'the approval message to be posted' });
    const message = approvalMessage() as SlackMessage;
    expect(message.threadTs).toBe(ts);
    const [approve] = buttonsOf(message);
    expect(approve?.action_id).toBe('agentplane_approve');

    // Bob's press is taken (Slack signed it) but resumes nothing; Alice's resumes the run: the tool
    // runs and the agent answers in the thread.
    await channel.expectOnlyAskerResumes((user) => press(user, approve as Button, message), {
      asker: ALICE,
      other: BOB,
    });
    const replies = slack.messages().filter((reply) => reply.channel === conversation);
    expect(replies.at(-1)?.text).toBe('The sum is \u200b*5*\u200b');
    expect(replies.every((reply) => reply.threadTs === ts)).toBe(true);
  });
});
