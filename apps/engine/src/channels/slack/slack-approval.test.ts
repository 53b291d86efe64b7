// Human in the loop on Slack, through a real engine: a tool call the policy wants approved pauses the
// run and becomes a Block Kit message with Approve and Reject in the thread; a press by the person who
// asked resumes the run, anyone else's does not.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import { channelWebhookUrl, publishChannelAgent, queueRows, startChannelEngine } from '../../testing/channel-agent.js';
import { ALLOW_EVERYTHING_STDIO, EVERYTHING_SUM, everythingStdioServer } from '../../testing/everything-server.js';
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

let database: TestDatabase;
let slack: FakeSlackApi;
let model: FakeOpenAiServer;
let engine: RunningEngine;
let agentId: string;
let url: string;
const signingSecret = `signing-${randomUUID()}`;

beforeAll(async () => {
  [database, slack, model] = await Promise.all([
    createTestDatabase(),
    startFakeSlackApi({ botToken }),
    startFakeOpenAiServer(),
  ]);
  const agent = await publishChannelAgent(
    database,
    [{ provider: 'SLACK', config: { botToken, signingSecret, appId } }],
    {
      model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
      mcpServers: [everythingStdioServer()],
      tools: { approval: ['*__get-sum'] },
    },
  );
  agentId = agent.agentId;
  engine = await startChannelEngine(database, agent, {
    ...ALLOW_EVERYTHING_STDIO,
    SLACK_API_BASE_URL: slack.baseUrl,
    CHANNEL_POLL_MS: '50',
    CHANNEL_RETRY_BASE_MS: '20',
  });
  url = channelWebhookUrl(engine.url, 'slack', agent.integrations[0]?.id ?? '');
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([slack?.close(), model?.close()]);
  await database?.drop();
});

type Button = { action_id: string; value: string };
const buttonsOf = (message: SlackMessage | undefined): Button[] =>
  ((message?.blocks ?? []) as { type: string; elements?: Button[] }[]).find((block) => block.type === 'actions')
    ?.elements ?? [];

const press = (user: string, button: Button, channel: string, message: SlackMessage) =>
  postSlackRequest(
    url,
    blockActionsRequest({
      appId,
      user,
      channel,
      messageTs: message.ts,
      threadTs: message.threadTs,
      actionId: button.action_id,
      value: button.value,
    }),
    { signingSecret },
  );

describe('a tool call that needs approval on Slack', () => {
  it('asks in the thread with buttons; only the person who asked resumes the run with a press', async () => {
    const channel = 'C0APPROVAL1';
    const ts = nextSlackTs();
    model.script(
      { toolCalls: [{ id: 'call-sum', name: EVERYTHING_SUM, arguments: ['{"a":2,"b":3}'] }] },
      { text: ['The sum is ', '**5**'] },
    );
    const asked = await postSlackRequest(
      url,
      messageEventRequest({ appId, channel, ts, user: ALICE, text: 'add 2 and 3' }),
      {
        signingSecret,
      },
    );
    expect(asked.status).toBe(200);
    const approvalMessage = () =>
      slack.messages().find((message) => message.channel === channel && message.blocks !== undefined);
    await waitUntil(() => approvalMessage() !== undefined, { what: 'the approval message to be posted' });
    const message = approvalMessage() as SlackMessage;
    expect(message.threadTs).toBe(ts);
    const [approve] = buttonsOf(message);
    expect(approve?.action_id).toBe('agentplane_approve');
    const requestsWhilePaused = model.requests.length;

    // Bob's press is taken (Slack signed it) but resumes nothing.
    expect((await press(BOB, approve as Button, channel, message)).status).toBe(200);
    await waitUntil(
      async () => (await queueRows(database, agentId)).some((row) => row.sender === BOB && row.status === 'skipped'),
      { what: "Bob's press to be skipped" },
    );
    expect(model.requests.length).toBe(requestsWhilePaused);

    // Alice's resumes the run: the tool runs and the agent answers in the thread.
    expect((await press(ALICE, approve as Button, channel, message)).status).toBe(200);
    await waitUntil(
      () => slack.messages().some((reply) => reply.channel === channel && reply.text === 'The sum is \u200b*5*\u200b'),
      { what: 'the answer after the approval' },
    );
    const toolResult = model.requests.at(-1)?.body.messages.find((entry) => entry.role === 'tool');
    expect(String(toolResult?.content)).toMatch(/5/);
    expect(
      slack
        .messages()
        .filter((reply) => reply.channel === channel)
        .every((reply) => reply.threadTs === ts),
    ).toBe(true);
  });
});
