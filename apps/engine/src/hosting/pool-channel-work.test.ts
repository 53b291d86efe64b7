// A pool loads an agent that no request names when its queued channel messages are due
// (engine_placements' has_work): a message whose retry came due while the agent was unloaded, or whose
// worker died holding it, is answered without waiting for a request to that agent.
import { randomBytes, randomUUID } from 'node:crypto';
import { createTestDatabase, issueTestPoolCredentials, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { queuedMessageOf } from '../channels/queued-item.js';
import type { RunningEngine } from '../start-engine.js';
import { type ChannelAgent, publishChannelAgent, waitForQueueStatus } from '../testing/channel-agent.js';
import { createEchoAdapter, type FakeEchoApi, startFakeEchoApi } from '../testing/echo-channel.js';
import { startTestEngine } from '../testing/test-engine.js';

let database: TestDatabase;
let api: FakeEchoApi;
let engine: RunningEngine | undefined;

beforeAll(async () => {
  database = await createTestDatabase();
  api = await startFakeEchoApi();
});

afterAll(async () => {
  await engine?.shutdown();
  await api?.close();
  await database?.drop();
});

const echoAgent = () =>
  publishChannelAgent(database, [
    { provider: 'TELEGRAM', config: { botToken: 'bot', secretToken: `secret_${randomUUID().replaceAll('-', '')}` } },
  ]);

/** A message queued for `agent` by an engine since gone, in the state given. */
async function queueMessage(agent: ChannelAgent, text: string, state: Record<string, unknown>): Promise<string> {
  const conversation = `c-${randomUUID()}`;
  const integration = agent.integrations[0] as ChannelAgent['integrations'][number];
  const item = {
    kind: 'message' as const,
    providerMessageId: `m-${randomUUID()}`,
    conversation,
    sender: 'u-1',
    address: { conversation },
    text,
    attachments: [],
  };
  const { payload, integrationId, ...row } = queuedMessageOf(integration, item);
  await database.prisma.inboundMessage.create({
    data: { ...row, integrationId, agentId: agent.agentId, payload: payload as object, ...state },
  });
  return conversation;
}

describe('a pool engine', () => {
  it('loads the agents whose queued channel messages are due, answers them with no request for the agent, and skips those of a removed integration', async () => {
    const [retried, abandoned, later] = [await echoAgent(), await echoAgent(), await echoAgent()];
    const hourAgo = new Date(Date.now() - 3_600_000);
    const retriedIn = await queueMessage(retried, 'retry me', { attempts: 1, nextAttemptAt: hourAgo });
    // Its worker died holding it: the lease ran out.
    const abandonedIn = await queueMessage(abandoned, 'take me over', {
      status: 'processing',
      attempts: 1,
      lockedUntil: hourAgo,
    });
    // Due in an hour: nothing calls for its agent yet.
    await queueMessage(later, 'not yet', { attempts: 1, nextAttemptAt: new Date(Date.now() + 3_600_000) });
    // Its integration was removed since: loaded once, its message is skipped and no longer calls for it.
    const orphaned = await echoAgent();
    await queueMessage(orphaned, 'nobody answers', { attempts: 1, nextAttemptAt: hourAgo });
    await orphaned.publish(orphaned.configWith([]));
    const pool = `t_${randomBytes(6).toString('hex')}`;
    const credentials = await issueTestPoolCredentials(
      database,
      pool,
      [retried, abandoned, later, orphaned].map((a) => a.agentId),
    );

    engine = await startTestEngine(
      { ...credentials, ENGINE_CONFIG_POLL_MS: '100', CHANNEL_POLL_MS: '50' },
      { channelAdapters: [createEchoAdapter({ baseUrl: api.baseUrl })] },
    );
    await waitForQueueStatus(database, retried.agentId, 'done');
    await waitForQueueStatus(database, abandoned.agentId, 'done');
    const replyIn = (conversation: string) =>
      api.delivered.filter((call) => call.body.address?.conversation === conversation).at(-1)?.body.text;
    expect(replyIn(retriedIn)).toBe('You said: retry me');
    expect(replyIn(abandonedIn)).toBe('You said: take me over');
    const [skipped] = await waitForQueueStatus(database, orphaned.agentId, 'skipped');
    expect(skipped?.lastError).toMatch(/no longer configured/);
    expect(api.delivered.filter((call) => call.body.text === 'You said: nobody answers')).toEqual([]);
    // The placements that loaded those three said the fourth had no work.
    const health = (await (await fetch(`${engine.url}/health`)).json()) as { agents: { loaded: number } };
    expect(health.agents.loaded).toBe(3);
  });
});
