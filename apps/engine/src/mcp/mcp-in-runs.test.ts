// MCP tools inside LLM runs: server-everything over streamable HTTP next to a dead server, with the
// model's tool calls scripted by the local OpenAI-compatible server.
import { EventType } from '@ag-ui/core';
import { type FakeOpenAiServer, makeRunAgentInput, startFakeOpenAiServer } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../start-engine.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { type EverythingHttpServer, startEverythingHttpServer } from '../testing/everything-server.js';
import { readEventStream } from '../testing/read-event-stream.js';
import { holdRefusingPort, type RefusingPort } from '../testing/refusing-port.js';
import { startFileEngine } from '../testing/test-engine.js';

let model: FakeOpenAiServer;
let everything: EverythingHttpServer;
let dead: RefusingPort;
let engine: RunningEngine;

beforeAll(async () => {
  [model, everything, dead] = await Promise.all([
    startFakeOpenAiServer(),
    startEverythingHttpServer(),
    holdRefusingPort(),
  ]);
  engine = await startFileEngine(
    makeLlmEngineConfig({
      model: { provider: 'openai', name: 'fake', baseUrl: model.baseUrl },
      mcpServers: [
        { name: 'dead', transport: 'streamable_http', url: `${dead.origin}/mcp`, timeoutSeconds: 2 },
        { name: 'remote', transport: 'streamable_http', url: everything.url, timeoutSeconds: 1 },
      ],
    }),
  );
});

afterAll(async () => {
  await engine?.shutdown();
  await Promise.all([everything?.stop(), model?.close(), dead?.release()]);
});

async function run(content: string) {
  const response = await fetch(`${engine.url}/agent/run`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(makeRunAgentInput(content)),
  });
  return (await readEventStream(response)).events;
}

describe('an LLM run with MCP tools over streamable HTTP', () => {
  it('offers the live server tools only, and the dead server shows in /health', async () => {
    model.script({ text: ['ok'] });
    await run('which tools?');
    const offered = model.requests.at(-1)?.body.tools?.map((tool) => tool.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(['remote__echo', 'remote__get-sum']));
    expect(offered.some((name) => name.startsWith('dead__'))).toBe(false);
    const health = (await (await fetch(`${engine.url}/health`)).json()) as { status: string; mcp: unknown[] };
    expect(health.status).toBe('degraded');
    expect(health.mcp).toEqual([
      { name: 'dead', status: 'failed', error: expect.any(String), error_id: expect.any(String) },
      { name: 'remote', status: 'connected' },
    ]);
  });

  it('calls the tool the model asks for and hands the result back to the model', async () => {
    model.script(
      { toolCalls: [{ id: 'call_sum', name: 'remote__get-sum', arguments: ['{"a":2,', '"b":40}'] }] },
      { text: ['The sum is 42.'] },
    );
    const events = await run('add 2 and 40');
    const result = events.find((event) => event.type === EventType.TOOL_CALL_RESULT);
    expect(result).toMatchObject({ toolCallId: 'call_sum', content: expect.stringContaining('42') });
    expect(model.requests.at(-1)?.body.messages.at(-1)).toEqual({
      role: 'tool',
      tool_call_id: 'call_sum',
      content: result?.content,
    });
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  });

  // The operation takes ten minutes and the SDK's own request timeout is 60 s: within this test's 30 s
  // time limit, only the server's 1 s timeoutSeconds can end the call.
  it("stops a tool call at the server's timeoutSeconds and lets the model read the failure", async () => {
    model.script(
      {
        toolCalls: [
          {
            id: 'call_slow',
            name: 'remote__trigger-long-running-operation',
            arguments: ['{"duration":600,"steps":600}'],
          },
        ],
      },
      { text: ['It took too long.'] },
    );
    const events = await run('do the slow thing');
    expect(events.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      content: 'The tool "remote__trigger-long-running-operation" timed out after 1 s.',
    });
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  }, 30_000);
});
