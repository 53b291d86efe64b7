// The traces of LLM runs, received by a real OTLP/HTTP receiver on loopback: the spans of a run with
// two MCP tool calls and how they nest, their GenAI attributes and token counts, no prompt text unless
// the agent's config asks for it, a caller's traceparent honoured and the run's trace returned, and a
// config change that moves export to another receiver, with the spans of a run in flight during the
// change still reaching the receiver it started with; a run its client left in the middle of an MCP
// call fails its span with the run's RUN_ERROR code, as a string.
import { randomUUID } from 'node:crypto';
import { type BaseEvent, EventType } from '@ag-ui/core';
import type { TObservabilityConfigInput } from '@agentplane/contracts';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import {
  type FakeOpenAiServer,
  makeRunAgentInput,
  type OtlpReceiver,
  type ReceivedSpan,
  startFakeOpenAiServer,
  startOtlpReceiver,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { type AgentRow, writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { type EverythingHttpServer, startEverythingHttpServer } from '../testing/everything-server.js';
import { hold } from '../testing/gate.js';
import { readEventStream } from '../testing/read-event-stream.js';
import { type RecordingProxy, startRecordingProxy } from '../testing/recording-proxy.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { TRACE_EVENT_NAME } from './traced-events.js';

const PROMPT = 'please add these numbers for Zanzibar';

let database: TestDatabase;
let row: AgentRow;
let model: FakeOpenAiServer;
let everything: EverythingHttpServer;
let proxy: RecordingProxy;
let first: OtlpReceiver;
let second: OtlpReceiver;
let engine: RunningEngine;
let version = 0;

function otlp(receiver: OtlpReceiver, capture = false): TObservabilityConfigInput {
  return { provider: 'OTLP', endpoint: receiver.url, protocol: 'http/json', capture_content: capture };
}

/** Publishes a config exporting as `observability` says, and waits until the engine serves it. */
async function publish(observability: TObservabilityConfigInput | null): Promise<void> {
  version++;
  const config = makeLlmEngineConfig({
    ...row,
    name: 'tracer',
    model: { provider: 'openai', name: 'fake-model', baseUrl: model.baseUrl },
    mcpServers: [{ name: 'remote', transport: 'streamable_http', url: proxy.url, timeoutSeconds: 600 }],
    observability,
  });
  await writeConfigRow(database.prisma, row, version, config);
  if (engine !== undefined) await waitUntilServed();
}

async function waitUntilServed(): Promise<void> {
  const served = async () => (await (await fetch(`${engine.url}/health`)).json()) as { config_version?: number };
  await waitUntil(async () => (await served()).config_version === version, {
    what: `config version ${version} to be served`,
  });
}

function postRun(content: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ ...makeRunAgentInput(content), threadId: randomUUID() }),
    ...(signal === undefined ? {} : { signal }),
  });
}

async function run(content: string, headers: Record<string, string> = {}) {
  const response = await postRun(content, headers);
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  const { events } = await readEventStream(response);
  return { response, events };
}

function traceIdOf(events: BaseEvent[]): string {
  const announced = events.find((event) => event.type === EventType.CUSTOM) as unknown as {
    value: { trace_id: string };
  };
  return announced.value.trace_id;
}

/** Waits for the run's span (the last one its trace ends) and returns every span of that trace. */
async function spansOfTrace(receiver: OtlpReceiver, traceId: string): Promise<ReceivedSpan[]> {
  const ofTrace = () => receiver.spans().filter((span) => span.traceId === traceId);
  await waitUntil(() => ofTrace().some((span) => span.name.startsWith('invoke_agent')), {
    what: `the run span of trace ${traceId}`,
  });
  return ofTrace();
}

const TWO_TOOL_CALLS = [
  {
    toolCalls: [
      { id: 'call_echo', name: 'remote__echo', arguments: ['{"message":"hi"}'] },
      { id: 'call_sum', name: 'remote__get-sum', arguments: ['{"a":2,"b":40}'] },
    ],
    usage: { prompt_tokens: 31, completion_tokens: 9 },
  },
  { text: ['The sum is 42.'], usage: { prompt_tokens: 57, completion_tokens: 5 } },
];

beforeAll(async () => {
  database = await createTestDatabase();
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  row = { agentId: agent.id, workspaceId: workspace.id };
  [model, everything, first, second] = await Promise.all([
    startFakeOpenAiServer(),
    startEverythingHttpServer(),
    startOtlpReceiver(),
    startOtlpReceiver(),
  ]);
  proxy = await startRecordingProxy(everything.url);
  await publish(otlp(first));
  engine = await startDatabaseEngine(database, row.agentId, { ENGINE_CONFIG_POLL_MS: '50' });
  await waitUntilServed();
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([model?.close(), proxy?.close(), first?.close(), second?.close()]);
  await everything?.stop();
  await database?.drop();
});

describe('the traces of an LLM run', () => {
  it('has a run span with a chat span per model call and an execute_tool span per MCP call under it', async () => {
    model.script(...TWO_TOOL_CALLS);
    const { response, events } = await run(PROMPT);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    const traceId = traceIdOf(events);
    const spans = await spansOfTrace(first, traceId);

    const [runSpan, ...others] = spans.filter((span) => span.name === 'invoke_agent tracer');
    expect(others).toEqual([]);
    expect(runSpan?.parentSpanId).toBeUndefined();
    expect(runSpan?.service).toBe('agentplane-engine');
    expect(runSpan?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': row.agentId,
      'gen_ai.agent.name': 'tracer',
      'gen_ai.conversation.id': (events[0] as unknown as { threadId: string }).threadId,
    });
    expect(response.headers.get('traceresponse')).toBe(`00-${traceId}-${runSpan?.spanId}-01`);

    const chats = spans.filter((span) => span.name === 'chat fake-model');
    expect(chats.map((span) => span.attributes)).toEqual([
      expect.objectContaining({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.usage.input_tokens': 31,
        'gen_ai.usage.output_tokens': 9,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      }),
      expect.objectContaining({
        'gen_ai.usage.input_tokens': 57,
        'gen_ai.usage.output_tokens': 5,
        'gen_ai.response.finish_reasons': ['stop'],
      }),
    ]);
    const tools = spans.filter((span) => span.name.startsWith('execute_tool'));
    expect(tools.map((span) => [span.name, span.attributes])).toEqual([
      [
        'execute_tool remote__echo',
        expect.objectContaining({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'remote__echo',
          'gen_ai.tool.call.id': 'call_echo',
          'mcp.server.name': 'remote',
        }),
      ],
      [
        'execute_tool remote__get-sum',
        expect.objectContaining({ 'gen_ai.tool.call.id': 'call_sum', 'mcp.server.name': 'remote' }),
      ],
    ]);
    for (const child of [...chats, ...tools]) expect(child.parentSpanId).toBe(runSpan?.spanId);
    expect(spans).toHaveLength(5);
  });

  it('records no prompt, completion or tool text unless the config captures content', async () => {
    model.script(...TWO_TOOL_CALLS);
    const { events } = await run(PROMPT);
    await spansOfTrace(first, traceIdOf(events));
    const exported = first.exports.map((received) => received.body.toString('utf8')).join('\n');
    expect(exported).not.toContain('Zanzibar');
    expect(exported).not.toContain('The sum is 42');
    expect(exported).not.toContain('gen_ai.input.messages');
  });

  it('records the messages and tool arguments and results when capture_content is on', async () => {
    await publish(otlp(first, true));
    try {
      model.script(...TWO_TOOL_CALLS);
      const { events } = await run(PROMPT);
      const spans = await spansOfTrace(first, traceIdOf(events));
      const [firstChat, secondChat] = spans.filter((span) => span.name === 'chat fake-model');
      expect(firstChat?.attributes['gen_ai.input.messages']).toContain('Zanzibar');
      expect(secondChat?.attributes['gen_ai.output.messages']).toContain('The sum is 42.');
      const sum = spans.find((span) => span.name === 'execute_tool remote__get-sum');
      expect(sum?.attributes['gen_ai.tool.call.arguments']).toBe('{"a":2,"b":40}');
      expect(sum?.attributes['gen_ai.tool.call.result']).toContain('42');
    } finally {
      await publish(otlp(first));
    }
  });

  it("continues the caller's trace from its traceparent, and returns the run's span in traceresponse", async () => {
    const callerTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
    const callerSpan = '0123456789abcdef';
    model.script({ text: ['hello'] });
    const { response, events } = await run('hi', { traceparent: `00-${callerTrace}-${callerSpan}-01` });
    expect(traceIdOf(events)).toBe(callerTrace);
    const [runSpan] = (await spansOfTrace(first, callerTrace)).filter((span) => span.name.startsWith('invoke_agent'));
    expect(runSpan?.parentSpanId).toBe(callerSpan);
    expect(response.headers.get('traceresponse')).toBe(`00-${callerTrace}-${runSpan?.spanId}-01`);
  });

  it("fails a run its client left during an MCP call with error.type the run's RUN_ERROR code", async () => {
    const callerTrace = 'b1b2c3d4e5f60718293a4b5c6d7e8f90';
    const client = new AbortController();
    model.script({
      toolCalls: [
        {
          id: 'call_long',
          name: 'remote__trigger-long-running-operation',
          arguments: ['{"duration":600,"steps":600}'],
        },
      ],
    });
    const calls = proxy.rpcMethods.filter((method) => method === 'tools/call').length;
    await postRun('hi', { traceparent: `00-${callerTrace}-0123456789abcdef-01` }, client.signal);
    await waitUntil(() => proxy.rpcMethods.filter((method) => method === 'tools/call').length > calls, {
      what: 'the tool call to reach the MCP server',
    });
    client.abort();
    const spans = await spansOfTrace(first, callerTrace);
    const runSpan = spans.find((span) => span.name.startsWith('invoke_agent'));
    expect(runSpan?.attributes['error.type']).toBe('cancelled');
    expect(runSpan?.status.code).toBe(2);
  });

  it('announces the trace in a CUSTOM event right after RUN_STARTED', async () => {
    model.script({ text: ['hello'] });
    const { events } = await run('hi');
    expect(events.slice(0, 2)).toEqual([
      expect.objectContaining({ type: EventType.RUN_STARTED }),
      {
        type: EventType.CUSTOM,
        name: TRACE_EVENT_NAME,
        value: { trace_id: expect.any(String), span_id: expect.any(String) },
      },
    ]);
  });
});

describe('a change of the observability config', () => {
  it('sends new runs to the new receiver without a restart, and a run in flight still to the old one', async () => {
    const thinking = hold();
    model.script({ gate: thinking.gate, turn: { text: ['slow answer'] } }, { text: ['fast answer'] });
    const requestsBefore = model.requests.length;
    const inFlight = postRun('slow question').then((response) => readEventStream(response));
    await waitUntil(() => model.requests.length > requestsBefore, { what: 'the slow run to call the model' });

    await publish(otlp(second));
    const moved = await run('fast question');
    const movedTrace = traceIdOf(moved.events);
    expect(await spansOfTrace(second, movedTrace)).toHaveLength(2);

    thinking.release();
    const slowTrace = traceIdOf((await inFlight).events);
    const slowSpans = await spansOfTrace(first, slowTrace);
    expect(slowSpans.map((span) => span.name).sort()).toEqual(['chat fake-model', 'invoke_agent tracer']);
    expect(second.spans().filter((span) => span.traceId === slowTrace)).toEqual([]);
    expect(first.spans().filter((span) => span.traceId === movedTrace)).toEqual([]);
    await publish(otlp(first));
  });

  it('exports nothing and announces no trace when the config drops observability', async () => {
    await publish(null);
    model.script({ text: ['quiet'] });
    const quiet = await run('hi');
    expect(quiet.response.headers.get('traceresponse')).toBeNull();
    expect(quiet.events.some((event) => event.type === EventType.CUSTOM)).toBe(false);
    const quietRunId = (quiet.events[0] as unknown as { runId: string }).runId;

    // Once a later traced run's spans arrive, anything the quiet run had exported would have too.
    await publish(otlp(first));
    model.script({ text: ['traced'] });
    const traced = await run('hi');
    await spansOfTrace(first, traceIdOf(traced.events));
    const all = [...first.spans(), ...second.spans()];
    expect(all.filter((span) => span.attributes['agentplane.run.id'] === quietRunId)).toEqual([]);
    expect(
      all.some(
        (span) => span.attributes['agentplane.run.id'] === (traced.events[0] as unknown as { runId: string }).runId,
      ),
    ).toBe(true);
  });
});
