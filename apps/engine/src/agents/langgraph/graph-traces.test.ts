// A LangGraph run's spans, received by an OTLP receiver: one per node run under the run's span, the
// model call under its node with LangChain's token count, and the MCP tool call under the tools node.
import { fileURLToPath } from 'node:url';
import { EventType } from '@ag-ui/core';
import {
  type FakeOpenAiServer,
  makeRunAgentInput,
  type OtlpReceiver,
  overrideEnvironment,
  startFakeOpenAiServer,
  startOtlpReceiver,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import { type EverythingHttpServer, startEverythingHttpServer } from '../../testing/everything-server.js';
import { makeLangGraphEngineConfig } from '../../testing/module-engine-configs.js';
import { readEventStream } from '../../testing/read-event-stream.js';
import { startFileEngine } from '../../testing/test-engine.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples', import.meta.url));

let model: FakeOpenAiServer;
let everything: EverythingHttpServer;
let receiver: OtlpReceiver;
let engine: RunningEngine;
let restoreEnvironment = () => {};

beforeAll(async () => {
  [model, everything, receiver] = await Promise.all([
    startFakeOpenAiServer(),
    startEverythingHttpServer(),
    startOtlpReceiver(),
  ]);
  restoreEnvironment = overrideEnvironment({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'sk-graph',
    OPENAI_MODEL: 'fake-model',
  });
  const config = makeLangGraphEngineConfig('langgraph/tool-agent.js:graph', {
    name: 'graph',
    mcpServers: [{ name: 'remote', transport: 'streamable_http', url: everything.url, timeoutSeconds: 5 }],
    observability: { provider: 'OTLP', endpoint: receiver.url, protocol: 'http/json' },
  });
  engine = await startFileEngine(config, { env: { ENGINE_AGENTS_DIR: EXAMPLES } });
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([model?.close(), everything?.stop(), receiver?.close()]);
  restoreEnvironment();
});

it('traces each node run, the model calls inside the agent node and the MCP call inside the tools node', async () => {
  model.script(
    {
      toolCalls: [{ id: 'call_echo', name: 'remote__echo', arguments: ['{"message":"hi"}'] }],
      usage: { prompt_tokens: 20, completion_tokens: 4 },
    },
    { text: ['It said hi.'], usage: { prompt_tokens: 30, completion_tokens: 3 } },
  );
  const response = await fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(makeRunAgentInput('echo hi')),
  });
  const { events } = await readEventStream(response);
  expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  const traceId = response.headers.get('traceresponse')?.split('-')[1];
  const spans = () => receiver.spans().filter((span) => span.traceId === traceId);
  await waitUntil(() => spans().some((span) => span.name === 'invoke_agent graph'), { what: 'the run span' });

  const byName = (name: string) => spans().filter((span) => span.name === name);
  const [run] = byName('invoke_agent graph');
  const agentNodes = byName('agent');
  const [toolsNode] = byName('tools');
  expect(agentNodes).toHaveLength(2);
  for (const node of [...agentNodes, toolsNode]) expect(node?.parentSpanId).toBe(run?.spanId);
  expect(agentNodes[0]?.attributes['langgraph.node']).toBe('agent');

  const chats = byName('chat fake-model');
  expect(chats.map((chat) => agentNodes.some((node) => node.spanId === chat.parentSpanId))).toEqual([true, true]);
  expect(
    chats.map((chat) => [chat.attributes['gen_ai.usage.input_tokens'], chat.attributes['gen_ai.usage.output_tokens']]),
  ).toEqual([
    [20, 4],
    [30, 3],
  ]);
  const [tool] = byName('execute_tool remote__echo');
  expect(tool?.parentSpanId).toBe(toolsNode?.spanId);
  expect(tool?.attributes).toMatchObject({ 'gen_ai.tool.name': 'remote__echo', 'mcp.server.name': 'remote' });
});
