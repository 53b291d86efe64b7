// The set-up of the channel approval suites, for any provider with buttons: an agent with one
// integration, on the fake model, with server-everything's tools and a policy that wants get-sum
// approved, served by a database-mode engine in this process whose channel worker polls fast; and the
// model's script of such a run: a get-sum call, then (once resumed) the answer.
import type { TestDatabase } from '@agentplane/db/testing';
import type { FakeOpenAiServer } from '@agentplane/testing';
import type { RunningEngine } from '../start-engine.js';
import {
  type ChannelAgent,
  type ChannelIntegration,
  channelWebhookUrl,
  publishChannelAgent,
  startChannelEngine,
} from './channel-agent.js';
import { ALLOW_EVERYTHING_STDIO, EVERYTHING_SUM, everythingStdioServer } from './everything-server.js';

export type ApprovalChannel = {
  agent: ChannelAgent;
  engine: RunningEngine;
  /** The integration's webhook on the engine. */
  webhook: string;
};

/** Publishes the agent with `integration` and starts its engine with `env` (the provider's base URLs). */
export async function startApprovalChannel(
  database: TestDatabase,
  options: { model: FakeOpenAiServer; integration: ChannelIntegration; slug: string; env: Record<string, string> },
): Promise<ApprovalChannel> {
  const agent = await publishChannelAgent(database, [options.integration], {
    model: { provider: 'openai', name: 'fake', baseUrl: options.model.baseUrl },
    mcpServers: [everythingStdioServer()],
    tools: { approval: ['*__get-sum'] },
  });
  const engine = await startChannelEngine(database, agent, {
    ...ALLOW_EVERYTHING_STDIO,
    CHANNEL_POLL_MS: '50',
    CHANNEL_RETRY_BASE_MS: '20',
    ...options.env,
  });
  return { agent, engine, webhook: channelWebhookUrl(engine.url, options.slug, agent.integrations[0]?.id ?? '') };
}

/** The model calls get-sum on `a` and `b` (which pauses the run), then, resumed, answers `answer`. */
export function scriptSumThenAnswer(model: FakeOpenAiServer, [a, b]: [number, number], answer: string[]): void {
  model.script(
    { toolCalls: [{ id: 'call-sum', name: EVERYTHING_SUM, arguments: [JSON.stringify({ a, b })] }] },
    { text: answer },
  );
}

/** What the last model request got back from the tool: get-sum's result, once the run resumed. */
export const lastToolResult = (model: FakeOpenAiServer): string =>
  String(model.requests.at(-1)?.body.messages.find((entry) => entry.role === 'tool')?.content);
