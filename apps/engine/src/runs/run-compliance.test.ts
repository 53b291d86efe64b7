// Runs consumed by the real AG-UI client (HttpAgent, whose verifier checks the event order), with the
// LLM agent on the OpenAI-compatible path against a local fake provider and a real MCP server.
import { randomUUID } from 'node:crypto';
import { type BaseEvent, EventType, HttpAgent, type Message } from '@ag-ui/client';
import { type FakeOpenAiServer, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { captureLogs } from '../testing/captured-logs.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { ALLOW_EVERYTHING_STDIO, everythingStdioServer } from '../testing/everything-server.js';
import { runWithClient } from '../testing/run-with-client.js';
import { startFileEngine } from '../testing/test-engine.js';

let model: FakeOpenAiServer;
let engine: RunningEngine;
const logs = captureLogs();

beforeAll(async () => {
  model = await startFakeOpenAiServer();
  const config = makeLlmEngineConfig({
    model: { provider: 'openai', name: 'fake-model', baseUrl: model.baseUrl, apiKeyEnv: 'FAKE_PROVIDER_KEY' },
    instructions: 'Be brief.',
    mcpServers: [everythingStdioServer()],
  });
  engine = await startFileEngine(config, {
    env: { FAKE_PROVIDER_KEY: 'sk-test-key', MODEL_API_KEY_ENVS: 'FAKE_PROVIDER_KEY', ...ALLOW_EVERYTHING_STDIO },
    logDestination: logs.destination,
  });
});

afterAll(async () => {
  await engine?.shutdown();
  await model?.close();
});

beforeEach(() => {
  model.requests.length = 0;
});

function newAgent(content: string, extra: Message[] = []) {
  return new HttpAgent({
    url: `${engine.url}/agent/run`,
    threadId: randomUUID(),
    initialMessages: [...extra, { id: randomUUID(), role: 'user', content }],
  });
}

describe('AG-UI compliance with HttpAgent', () => {
  it('streams a plain text reply and ends with RUN_FINISHED', async () => {
    model.script({ text: ['Hel', 'lo ', 'there'] });
    const agent = newAgent('hi');
    const { events, last, failure, result } = await runWithClient(agent);
    expect(failure).toBeUndefined();
    expect(last?.type).toBe(EventType.RUN_FINISHED);
    expect(events[0]?.type).toBe(EventType.RUN_STARTED);
    expect(events.filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT).map((event) => event.delta)).toEqual(
      ['Hel', 'lo ', 'there'],
    );
    expect(result?.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Hello there' })]);
    // The provider got the key from the configured variable, the instructions first, and the user turn.
    const [request] = model.requests;
    expect(request?.authorization).toBe('Bearer sk-test-key');
    expect(request?.body).toMatchObject({ model: 'fake-model', stream: true });
    expect(request?.body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('runs an MCP tool the model calls, streams its result, and lets the model answer', async () => {
    model.script(
      {
        text: ['Let me check. '],
        toolCalls: [{ id: 'call_echo', name: 'everything__echo', arguments: ['{"mess', 'age":"hi"}'] }],
      },
      { text: ['It said hi.'] },
    );
    const agent = newAgent('echo hi');
    const { events, last, failure, result } = await runWithClient(agent);
    expect(failure).toBeUndefined();
    expect(last?.type).toBe(EventType.RUN_FINISHED);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining([
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_END,
        EventType.TOOL_CALL_RESULT,
      ]),
    );
    expect(result?.newMessages).toEqual([
      expect.objectContaining({
        role: 'assistant',
        content: 'Let me check. ',
        toolCalls: [
          { id: 'call_echo', type: 'function', function: { name: 'everything__echo', arguments: '{"message":"hi"}' } },
        ],
      }),
      expect.objectContaining({ role: 'tool', toolCallId: 'call_echo', content: 'Echo: hi' }),
      expect.objectContaining({ role: 'assistant', content: 'It said hi.' }),
    ]);
    expect(model.requests[0]?.body.tools?.map((tool) => tool.function.name)).toContain('everything__echo');
    expect(model.requests[1]?.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_echo',
      content: 'Echo: hi',
    });
  });

  it('ends the run on a frontend tool call so the client can answer it, then continues in a new run', async () => {
    const confirm = {
      name: 'confirm',
      description: 'Ask the user to confirm',
      parameters: { type: 'object', properties: { question: { type: 'string' } } },
    };
    model.script({ toolCalls: [{ id: 'call_confirm', name: 'confirm', arguments: ['{"question":"Go?"}'] }] });
    const agent = newAgent('deploy it');
    const first = await runWithClient(agent, { tools: [confirm] });
    expect(first.failure).toBeUndefined();
    expect(first.last).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'success', pendingToolCallIds: ['call_confirm'] },
    });
    expect(first.events.some((event) => event.type === EventType.TOOL_CALL_RESULT)).toBe(false);
    expect(first.result?.newMessages).toEqual([
      expect.objectContaining({
        role: 'assistant',
        toolCalls: [
          expect.objectContaining({
            id: 'call_confirm',
            function: { name: 'confirm', arguments: '{"question":"Go?"}' },
          }),
        ],
      }),
    ]);
    expect(model.requests[0]?.body.tools?.map((tool) => tool.function.name)).toContain('confirm');

    agent.addMessage({ id: randomUUID(), role: 'tool', toolCallId: 'call_confirm', content: 'yes' });
    model.script({ text: ['Deployed.'] });
    const second = await runWithClient(agent, { tools: [confirm] });
    expect(second.last?.type).toBe(EventType.RUN_FINISHED);
    expect(second.result?.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Deployed.' })]);
    expect(model.requests[1]?.body.messages.slice(-2)).toEqual([
      expect.objectContaining({ role: 'assistant', tool_calls: [expect.objectContaining({ id: 'call_confirm' })] }),
      { role: 'tool', tool_call_id: 'call_confirm', content: 'yes' },
    ]);
  });

  it('turns a provider failure into a final RUN_ERROR with a message, a code and an error id, and no stack', async () => {
    const body = 'upstream exploded: internal host db-7.corp';
    model.script({ status: 500, message: body }, { status: 500, message: body });
    const agent = newAgent('hi');
    const { events, last, result } = await runWithClient(agent);
    expect(last).toMatchObject({ type: EventType.RUN_ERROR, code: 'model_error' });
    // Nothing was said: the conversation is still just the user's message.
    expect(result?.newMessages ?? []).toEqual([]);
    expect(agent.messages.map((message) => message.role)).toEqual(['user']);
    expect(events.filter((event) => event.type === EventType.RUN_ERROR)).toHaveLength(1);
    // What the provider said goes to the log, under the id the client is given, and nowhere public.
    const errorId = /^The model provider failed \(error id ([0-9a-f-]{36})\)\.$/.exec(String(last?.message))?.[1] ?? '';
    expect(JSON.stringify(events)).not.toContain('exploded');
    expect(JSON.stringify(last)).not.toMatch(/at .*\.(js|ts):\d+/);
    expect(JSON.stringify(logs.withErrorId(errorId))).toContain(body);
    expect(await (await fetch(`${engine.url}/health`)).text()).not.toContain('exploded');
  });

  it('stops the model call when the client aborts mid-stream', async () => {
    model.script({ stall: ['partial ', 'answer '] });
    const agent = newAgent('tell me a long story');
    const events: BaseEvent[] = [];
    const run = agent.runAgent(
      {},
      {
        onEvent: ({ event }) => {
          events.push(event);
          if (event.type === EventType.TEXT_MESSAGE_CONTENT && event.delta === 'answer ') agent.abortRun();
        },
      },
    );
    await run.catch(() => undefined);
    // The engine saw the client leave and closed its own request to the provider.
    await waitUntil(() => model.clientAborts() === 1, { what: 'the provider request to be aborted' });
    // The client marks its own abort with a local RUN_ERROR "abort"; nothing after the last delta came from the engine.
    expect(events.at(-2)).toMatchObject({ type: EventType.TEXT_MESSAGE_CONTENT, delta: 'answer ' });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'abort' });
    expect(events.some((event) => event.type === EventType.RUN_FINISHED)).toBe(false);
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'partial answer ' });
  });
});
