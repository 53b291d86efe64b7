// POST /agent/run over real HTTP: what is refused before the stream, how the stream is encoded and
// kept alive, and how runs behave across config changes and client disconnects.
import { type BaseEvent, EventType } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, decode } from '@ag-ui/proto';
import { type FakeOpenAiServer, makeRunAgentInput, startFakeOpenAiServer, waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import {
  ALLOW_EVERYTHING_STDIO,
  everythingStdioServer,
  startEverythingHttpServer,
} from '../testing/everything-server.js';
import { joinText, listTypes, readEventStream } from '../testing/read-event-stream.js';
import { startRecordingProxy } from '../testing/recording-proxy.js';
import { soleHolder, startFileEngine } from '../testing/test-engine.js';

const input = (content: string) => makeRunAgentInput(content);

function postRun(engine: RunningEngine, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

let model: FakeOpenAiServer;
let mock: RunningEngine;

beforeAll(async () => {
  model = await startFakeOpenAiServer();
  mock = await startFileEngine(makeLlmEngineConfig({ mcpServers: [everythingStdioServer()] }), {
    env: ALLOW_EVERYTHING_STDIO,
  });
});

afterAll(async () => {
  await mock?.shutdown();
  await model?.close();
});

describe('before the stream starts', () => {
  it('answers an invalid RunAgentInput with 422 problem+json naming the fields', async () => {
    const response = await postRun(mock, { threadId: 't', messages: 'nope' });
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await response.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((error) => error.path)).toEqual(expect.arrayContaining(['runId', 'messages']));
  });

  it('answers a body that is not JSON with 415, and malformed JSON with 400', async () => {
    expect((await postRun(mock, 'hello', { 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await postRun(mock, '{"threadId":')).status).toBe(400);
  });
});

describe('the event stream', () => {
  it('is SSE with no-cache, no-transform and no proxy buffering, for */* and for no Accept at all', async () => {
    for (const accept of [{ Accept: '*/*' }, {}] as Record<string, string>[]) {
      const response = await postRun(mock, input('hello'), accept);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
      expect(response.headers.get('x-accel-buffering')).toBe('no');
      const { events } = await readEventStream(response);
      expect(listTypes(events)).toEqual([
        EventType.RUN_STARTED,
        EventType.TEXT_MESSAGE_START,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TEXT_MESSAGE_CONTENT,
        EventType.TEXT_MESSAGE_END,
        EventType.RUN_FINISHED,
      ]);
      expect(joinText(events)).toBe('You said: hello');
    }
  });

  it('is AG-UI protobuf only when the client asks for it by name', async () => {
    const response = await postRun(mock, input('hello'), { Accept: AGUI_MEDIA_TYPE });
    expect(response.headers.get('content-type')).toBe(AGUI_MEDIA_TYPE);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const events: BaseEvent[] = [];
    for (let offset = 0; offset < bytes.length; ) {
      const length = new DataView(bytes.buffer, offset, 4).getUint32(0, false);
      events.push(decode(bytes.slice(offset + 4, offset + 4 + length)));
      offset += 4 + length;
    }
    expect(events[0]?.type).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(joinText(events)).toBe('You said: hello');
    const refused = await postRun(mock, input('hello'), { Accept: `${AGUI_MEDIA_TYPE};q=0, text/event-stream` });
    expect(refused.headers.get('content-type')).toBe('text/event-stream');
    await refused.body?.cancel();
  });

  it('runs an MCP tool that the mock model calls', async () => {
    const { events } = await readEventStream(await postRun(mock, input('call echo {"message":"yo"}')));
    expect(events.find((event) => event.type === EventType.TOOL_CALL_START)).toMatchObject({
      toolCallName: 'everything__echo',
    });
    expect(events.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ content: 'Echo: yo' });
    expect(joinText(events)).toBe('The tool answered: Echo: yo');
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  });

  it('sends keepalive comments while the model is quiet', async () => {
    const engine = await startFileEngine(
      makeLlmEngineConfig({ model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl } }),
      { keepaliveMs: 50 },
    );
    try {
      model.script({ stall: ['thinking '] });
      const aborted = model.clientAborts();
      // Until the stalled text has come and two keepalives with it: on a busy machine both may come first.
      const read = await readEventStream(
        await postRun(engine, input('hi')),
        ({ comments, events }) => comments.length >= 2 && joinText(events) === 'thinking ',
      );
      expect(read.comments.slice(0, 2)).toEqual([': keepalive', ': keepalive']);
      expect(joinText(read.events)).toBe('thinking ');
      await waitUntil(() => model.clientAborts() === aborted + 1, { what: 'the model call to be aborted' });
    } finally {
      await engine.shutdown();
    }
  });

  it('ends with RUN_ERROR max_steps_exceeded when the model still wants tools after maxSteps', async () => {
    const engine = await startFileEngine(
      makeLlmEngineConfig({
        model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
        maxSteps: 2,
        mcpServers: [everythingStdioServer()],
      }),
      { env: ALLOW_EVERYTHING_STDIO },
    );
    try {
      const echo = (id: string) => ({
        toolCalls: [{ id, name: 'everything__echo', arguments: ['{"message":"again"}'] }],
      });
      model.script(echo('call_1'), echo('call_2'));
      const before = model.requests.length;
      const { events } = await readEventStream(await postRun(engine, input('loop')));
      expect(events.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'max_steps_exceeded' });
      expect(events.filter((event) => event.type === EventType.TOOL_CALL_RESULT)).toHaveLength(2);
      expect(model.requests.length - before).toBe(2);
    } finally {
      await engine.shutdown();
    }
  });
});

describe('runs and config changes', () => {
  it('finishes an in-flight run on the config it started with, then closes that config', async () => {
    const engine = await startFileEngine(
      makeLlmEngineConfig({
        name: 'first',
        model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
        mcpServers: [everythingStdioServer()],
      }),
      { env: ALLOW_EVERYTHING_STDIO },
    );
    try {
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const before = model.requests.length;
      model.script(
        { gate, turn: { toolCalls: [{ id: 'call_old', name: 'everything__echo', arguments: ['{"message":"old"}'] }] } },
        { text: ['done'] },
      );
      const first = soleHolder(engine).current();
      const running = postRun(engine, input('go')).then((response) => readEventStream(response));
      await waitUntil(() => model.requests.length === before + 1, { what: 'the run to reach the model' });

      // A new config without any MCP server arrives while the model is still thinking.
      const applied = await soleHolder(engine).apply(
        makeLlmEngineConfig({ name: 'second', model: { provider: 'mock', name: 'echo' } }),
        2,
      );
      expect(applied).toEqual({ applied: true });
      expect(soleHolder(engine).current()?.config.agent.name).toBe('second');

      release();
      const { events } = await running;
      expect(events.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ content: 'Echo: old' });
      expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
      // With its last run done, the replaced config closes its MCP connections.
      await first?.retire();
      await expect(
        first?.toolset.call('everything__echo', { message: 'x' }, new AbortController().signal),
      ).resolves.toMatchObject({
        isError: true,
      });
    } finally {
      await engine.shutdown();
    }
  });

  it('aborts the MCP call of a run whose client went away, and then closes its old config', async () => {
    const everything = await startEverythingHttpServer();
    const server = await startRecordingProxy(everything.url);
    let engine: RunningEngine | undefined;
    try {
      // Ten minutes for the operation and for the timeout: only the abort can end the call within the test.
      engine = await startFileEngine(
        makeLlmEngineConfig({
          mcpServers: [{ name: 'everything', transport: 'streamable_http', url: server.url, timeoutSeconds: 600 }],
        }),
      );
      const first = soleHolder(engine).current();
      const client = new AbortController();
      await postRun(
        engine,
        input('call trigger-long-running-operation {"duration":600,"steps":600}'),
        {},
        client.signal,
      );
      await waitUntil(() => server.rpcMethods.includes('tools/call'), { what: 'the call to reach the MCP server' });
      client.abort();
      await waitUntil(() => server.rpcMethods.includes('notifications/cancelled'), {
        what: 'the cancellation to reach the MCP server',
      });
      await soleHolder(engine).apply(makeLlmEngineConfig({ name: 'next' }), 2);
      await first?.retire();
      expect(server.httpMethods).toContain('DELETE');
    } finally {
      await engine?.shutdown();
      await server.close();
      await everything.stop();
    }
  });
});

describe('an agent whose module does not load', () => {
  let engine: RunningEngine;

  beforeAll(async () => {
    const config = makeLlmEngineConfig();
    engine = await startFileEngine({
      ...config,
      agent: { ...config.agent, framework: 'LANGGRAPH', config: { graph: 'graphs/support.js:graph' } },
    });
  });

  afterAll(async () => {
    await engine?.shutdown();
  });

  // The file's path stays in the log: a client learns the class of failure and the error id.
  it('answers runs with 503 problem+json naming the class of failure and an error id', async () => {
    const response = await postRun(engine, input('hi'));
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const { detail } = (await response.json()) as { detail: string };
    expect(detail).toMatch(/\(missing_file\) \(error id [0-9a-f-]{36}\)/);
    expect(detail).not.toContain('support.js');
  });

  it('says so in /agent/capabilities', async () => {
    const response = await fetch(`${engine.url}/agent/capabilities`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ framework: 'LANGGRAPH', supported: false, detail: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain('support.js');
  });
});
