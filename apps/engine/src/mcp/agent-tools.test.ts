// MCP servers of transport "agent" on the calling engine: the called agent is offered as one tool,
// described as the manager published it, without connecting at apply time; what cannot be called says
// why in /health; and a call the manager gives no token for ends as a tool error the model reads.
import { randomUUID } from 'node:crypto';
import { type FakeOpenAiServer, makeRunAgentInput, startFakeOpenAiServer } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { type ManagerIssuer, startManagerIssuer } from '../testing/manager-issuer.js';
import { readEventStream } from '../testing/read-event-stream.js';
import { startFileEngine } from '../testing/test-engine.js';
import { AGENT_TOOL_PARAMETERS } from './agent-tools.js';

type Health = { mcp: { name: string; status: string; error?: string }[] };

const helper = randomUUID();
const missing = randomUUID();
let model: FakeOpenAiServer;
let manager: ManagerIssuer;
const engines: RunningEngine[] = [];

const agentId = randomUUID();

function config() {
  return {
    ...makeLlmEngineConfig({
      agentId,
      model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
      mcpServers: [
        { name: 'ask', transport: 'agent', agent_id: helper },
        { name: 'gone', transport: 'agent', agent_id: missing },
      ],
    }),
    agent_calls: {
      credential: `${agentId}.${'c'.repeat(43)}`,
      callees: [
        {
          agent_id: helper,
          name: 'Helper Agent',
          description: 'Helps',
          url: 'http://127.0.0.1:9/mcp',
          platform_url: false,
        },
      ],
    },
  };
}

async function start(env: Record<string, string> = {}) {
  const engine = await startFileEngine(config(), { env });
  engines.push(engine);
  return engine;
}

const healthOf = async (engine: RunningEngine) => (await (await fetch(`${engine.url}/health`)).json()) as Health;

beforeAll(async () => {
  [model, manager] = await Promise.all([startFakeOpenAiServer(), startManagerIssuer()]);
});
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.shutdown()));
  await Promise.all([model?.close(), manager?.close()]);
});

describe('an MCP server of transport "agent"', () => {
  it('is unavailable, saying why, without a manager to ask for tokens or without the agent in the config', async () => {
    const { mcp } = await healthOf(await start());
    expect(mcp).toEqual([
      { name: 'ask', status: 'failed', error: expect.stringContaining('ENGINE_MANAGER_ISSUER') },
      { name: 'gone', status: 'failed', error: 'The agent it calls is not in this config' },
    ]);
  });

  it('offers the agent as one tool, and a call the manager gives no token for is an error the model reads', async () => {
    const engine = await start({ ENGINE_MANAGER_ISSUER: manager.issuer });
    expect((await healthOf(engine)).mcp).toEqual(expect.arrayContaining([{ name: 'ask', status: 'connected' }]));
    model.script(
      { toolCalls: [{ id: 'call_helper', name: 'ask__helper_agent', arguments: ['{"message":"hi"}'] }] },
      { text: ['No help came.'] },
    );
    const response = await fetch(`${engine.url}/agent/run`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${await manager.mint({ aud: agentId })}`,
      },
      body: JSON.stringify(makeRunAgentInput('ask the helper')),
    });
    const { events } = await readEventStream(response);
    const offered = model.requests.at(-2)?.body.tools?.find((tool) => tool.function.name === 'ask__helper_agent');
    expect(offered?.function).toEqual({
      name: 'ask__helper_agent',
      description: 'Helps',
      parameters: AGENT_TOOL_PARAMETERS,
    });
    expect(events.find((event) => event.type === 'TOOL_CALL_RESULT')).toMatchObject({
      // This manager serves its keys and nothing else: its 404 is all the engine can say.
      content: 'The tool "ask__helper_agent" failed: The manager answered 404.',
    });
    expect(events.at(-1)?.type).toBe('RUN_FINISHED');
  });
});
