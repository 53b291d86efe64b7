// The channel approval suites, for any provider with buttons: their own database and fake model, an
// agent with one integration whose tool policy wants server-everything's get-sum approved, served by a
// database-mode engine in this process whose channel worker polls fast; the model's script of such a
// run; and the presses every provider must tell apart (anyone's but the asker's resumes nothing).
// Each suite runs one such question at a time.
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { type FakeOpenAiServer, startFakeOpenAiServer } from '@agentplane/testing';
import { expect } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import {
  type ChannelAgent,
  type ChannelIntegration,
  channelWebhookUrl,
  publishChannelAgent,
  startChannelEngine,
  waitForQueueStatus,
} from './channel-agent.js';
import { ALLOW_EVERYTHING_STDIO, EVERYTHING_SUM, everythingStdioServer } from './everything-server.js';

type Press = () => Promise<{ status: number }>;

export type ApprovalChannel = {
  database: TestDatabase;
  model: FakeOpenAiServer;
  agent: ChannelAgent;
  engine: RunningEngine;
  /** The integration's webhook on the engine. */
  webhook: string;
  /** The model calls get-sum on the addends (which pauses the run), then, resumed, answers `answer`. */
  scriptSumThenAnswer: (addends: [number, number], answer: string[]) => void;
  /**
   * Once the question was answered with the approval message: `press(other)` is taken (a 200) but its
   * item is skipped and the model not called again; then `expectResumes` of `press(asker)`.
   */
  expectOnlyAskerResumes: (
    press: (sender: string) => Promise<{ status: number }>,
    people: { asker: string; other: string },
  ) => Promise<void>;
  /** The asker's press is taken and resumes the run, which ends with get-sum's result sent to the model. */
  expectResumes: (press: Press) => Promise<void>;
  /** Stops the engine and the model and drops the database. */
  close: () => Promise<void>;
};

const toolResultOf = (model: FakeOpenAiServer): string =>
  String(model.requests.at(-1)?.body.messages.find((entry) => entry.role === 'tool')?.content);

/**
 * The agent with `integration` and its engine with `env` (the provider's base URLs, pointing at the
 * provider's fake), `slug` naming the provider's webhook.
 */
export async function startApprovalChannel(options: {
  integration: ChannelIntegration;
  slug: string;
  env: Record<string, string>;
}): Promise<ApprovalChannel> {
  const [database, model] = await Promise.all([createTestDatabase(), startFakeOpenAiServer()]);
  const agent = await publishChannelAgent(database, [options.integration], {
    model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
    mcpServers: [everythingStdioServer()],
    tools: { approval: ['*__get-sum'] },
  });
  const engine = await startChannelEngine(database, agent, {
    ...ALLOW_EVERYTHING_STDIO,
    CHANNEL_POLL_MS: '50',
    CHANNEL_RETRY_BASE_MS: '20',
    ...options.env,
  });
  let sum = Number.NaN;

  const expectResumes = async (press: Press) => {
    const requestsWhilePaused = model.requests.length;
    expect((await press()).status).toBe(200);
    await waitForQueueStatus(database, agent.agentId, 'done', 2);
    expect(model.requests.length).toBe(requestsWhilePaused + 1);
    expect(toolResultOf(model)).toContain(String(sum));
  };

  return {
    database,
    model,
    agent,
    engine,
    webhook: channelWebhookUrl(engine.url, options.slug, agent.integrations[0]?.id ?? ''),
    scriptSumThenAnswer: ([a, b], answer) => {
      sum = a + b;
      model.script(
        { toolCalls: [{ id: 'call-sum', name: EVERYTHING_SUM, arguments: [JSON.stringify({ a, b })] }] },
        { text: answer },
      );
    },
    expectOnlyAskerResumes: async (press, { asker, other }) => {
      await waitForQueueStatus(database, agent.agentId, 'done');
      const requestsWhilePaused = model.requests.length;
      expect((await press(other)).status).toBe(200);
      const [skipped] = await waitForQueueStatus(database, agent.agentId, 'skipped');
      expect(skipped).toMatchObject({ sender: other, kind: 'approval' });
      expect(model.requests.length).toBe(requestsWhilePaused);
      await expectResumes(() => press(asker));
    },
    expectResumes,
    close: async () => {
      await engine.shutdown();
      await model.close();
      await database.drop();
    },
  };
}
