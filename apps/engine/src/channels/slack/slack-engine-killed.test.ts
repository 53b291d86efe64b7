// Fault test: an engine process SIGKILLed while a Slack reply streams (posted, its ts saved under the
// lease, the model still talking). The engine started after it finishes the same message with
// chat.update: one message in the thread, never a second post.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  channelWebhookUrl,
  publishChannelAgent,
  queueRows,
  startChannelEngineProcess,
  waitForQueueStatus,
} from '../../testing/channel-agent.js';
import type { EngineProcess } from '../../testing/engine-process.js';
import { type FakeSlackApi, startFakeSlackApi } from '../../testing/fake-slack-api.js';
import { messageEventRequest, nextSlackTs, postSlackRequest } from '../../testing/slack-deliveries.js';

jest.setTimeout(120_000);

const botToken = `xoxb-${randomUUID()}`;
const appId = 'A0KILLED001';

let database: TestDatabase;
let slack: FakeSlackApi;
let model: FakeOpenAiServer;
const processes: EngineProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  slack = await startFakeSlackApi({ botToken });
  model = await startFakeOpenAiServer();
});

afterAll(async () => {
  for (const engine of processes) await engine.kill('SIGKILL');
  await slack?.close();
  await model?.close();
  await database?.drop();
});

describe('an engine SIGKILLed while a Slack reply streams', () => {
  it('replies exactly once after a restart, finishing the message it had posted', async () => {
    const signingSecret = `signing-${randomUUID()}`;
    const agent = await publishChannelAgent(
      database,
      [{ provider: 'SLACK', config: { botToken, signingSecret, appId } }],
      {
        model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
      },
    );
    const env = {
      SLACK_API_BASE_URL: slack.baseUrl,
      CHANNEL_POLL_MS: '50',
      CHANNEL_RETRY_BASE_MS: '20',
      // The claim does not run out while the test looks: only the kill acts.
      CHANNEL_LEASE_MS: '120000',
    };
    // The first run streams its first words and then never ends; the run after the restart answers.
    model.script({ stall: ['Working', ' on it'] }, { text: ['Done: ', 'all **good**'] });
    const first = await startChannelEngineProcess(database, agent, env, processes);
    const channel = 'C0KILLED001';
    const ts = nextSlackTs();
    const url = channelWebhookUrl(first.url, 'slack', agent.integrations[0]?.id ?? '');
    const accepted = await postSlackRequest(url, messageEventRequest({ appId, channel, ts, text: 'go' }), {
      signingSecret,
    });
    expect(accepted.status).toBe(200);

    const postedTs = async () =>
      ((await queueRows(database, agent.agentId))[0]?.replyState as { posted: string[] } | null)?.posted[0];
    await waitUntil(async () => (await postedTs()) !== undefined, { what: "the streamed message's ts to be saved" });
    const posted = await postedTs();
    await first.kill('SIGKILL');
    expect(await queueRows(database, agent.agentId)).toEqual([expect.objectContaining({ status: 'processing' })]);

    // The killed engine's lease would run out after CHANNEL_LEASE_MS; the test ends it now instead.
    await database.prisma.inboundMessage.updateMany({
      where: { agentId: agent.agentId, status: 'processing' },
      data: { lockedUntil: new Date(0) },
    });
    await startChannelEngineProcess(database, agent, env, processes);
    await waitForQueueStatus(database, agent.agentId, 'done');

    const calls = slack.delivered.filter((call) => call.args.channel === channel);
    expect(calls.filter((call) => call.method === 'chat.postMessage')).toHaveLength(1);
    expect(calls.filter((call) => call.method === 'chat.update').every((call) => call.args.ts === posted)).toBe(true);
    expect(slack.messages()).toEqual([
      expect.objectContaining({ channel, ts: posted, threadTs: ts, text: 'Done: all \u200b*good*\u200b' }),
    ]);
  });
});
