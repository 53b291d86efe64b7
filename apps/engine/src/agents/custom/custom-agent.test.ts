// CUSTOM agents end to end: a real engine loads the fixture factories, and HttpAgent (verifyEvents on)
// consumes what the engine relays.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { EventType, HttpAgent } from '@ag-ui/client';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import { ALLOW_EVERYTHING_STDIO, everythingStdioServer } from '../../testing/everything-server.js';
import { makeCustomEngineConfig } from '../../testing/module-engine-configs.js';
import { runWithClient } from '../../testing/run-with-client.js';
import { startFileEngine } from '../../testing/test-engine.js';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
const engines: RunningEngine[] = [];

async function startCustomEngine(module: string, options: { tools?: boolean } = {}) {
  const config = makeCustomEngineConfig(module, {
    name: 'custom echo',
    mcpServers: options.tools ? [everythingStdioServer()] : [],
  });
  const engine = await startFileEngine(config, { env: { ENGINE_AGENTS_DIR: FIXTURES, ...ALLOW_EVERYTHING_STDIO } });
  engines.push(engine);
  return engine;
}

async function say(engine: RunningEngine, content: string) {
  const agent = new HttpAgent({
    url: `${engine.url}/agent/run`,
    threadId: randomUUID(),
    initialMessages: [{ id: randomUUID(), role: 'user', content }],
  });
  return runWithClient(agent);
}

let echo: RunningEngine;

beforeAll(async () => {
  echo = await startCustomEngine('echo-agent.js:createEchoAgent', { tools: true });
});

afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.shutdown()));
});

describe('CUSTOM agents', () => {
  it('relays the events of the agent the factory made, with the config and tools it was given', async () => {
    const { events, result, failure } = await say(echo, 'hello');
    expect(failure).toBeUndefined();
    expect(events.map((event) => event.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    expect(result?.newMessages).toEqual([
      expect.objectContaining({
        role: 'assistant',
        content: expect.stringMatching(/^echo: hello \(agent custom echo, \d+ tools\)$/),
      }),
    ]);
    const content = String(result?.newMessages[0]?.content);
    expect(Number(/(\d+) tools/.exec(content)?.[1])).toBeGreaterThan(0);
  });

  it('lets the agent call its MCP tools through ctx.callTool', async () => {
    const { result, failure } = await say(echo, 'tool ping');
    expect(failure).toBeUndefined();
    expect(result?.newMessages).toEqual([expect.objectContaining({ content: 'tool said: Echo: ping' })]);
  });

  it('closes the stream of an agent that breaks the event order with RUN_ERROR, and unsubscribes from it', async () => {
    const engine = await startCustomEngine('out-of-order-agent.js:createAgent');
    // The module instance the engine imported (same URL, same config-version query), to read its teardowns.
    const fixtureUrl = new URL('./fixtures/out-of-order-agent.js?v=1', import.meta.url).href;
    const { teardowns } = (await import(fixtureUrl)) as { teardowns: { count: number } };
    const before = teardowns.count;
    const { events, failure } = await say(engine, 'hi');
    expect(events.map((event) => event.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);
    expect(events.at(-1)).toMatchObject({ code: 'protocol_violation' });
    expect(failure).toBeUndefined();
    await waitUntil(() => teardowns.count > before, { what: 'the agent stream to be torn down' });
  });

  it('serves the example custom agent shipped in examples/', async () => {
    const examples = fileURLToPath(new URL('../../../examples', import.meta.url));
    const config = makeCustomEngineConfig('custom/echo-agent.js:createAgent');
    const engine = await startFileEngine(config, { env: { ENGINE_AGENTS_DIR: examples } });
    engines.push(engine);
    const { result, failure } = await say(engine, 'hi');
    expect(failure).toBeUndefined();
    expect(result?.newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'You said: hi. My tools: none.' }),
    ]);
  });

  it("gives the agent the run's resume: an interrupt it raised is answered in its next run", async () => {
    const engine = await startCustomEngine('approval-agent.js:createAgent');
    const agent = new HttpAgent({ url: `${engine.url}/agent/run`, threadId: randomUUID() });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'report please' });
    const first = await runWithClient(agent);
    expect(first.failure).toBeUndefined();
    expect(first.last).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'interrupt', interrupts: [{ reason: 'confirm', message: 'Send the report?' }] },
    });
    // The client's verifier took the outcome: the interrupt is pending on its side too.
    const [pending] = agent.pendingInterrupts;
    expect(pending?.id).toMatch(/^confirm-/);

    const resumed = await runWithClient(agent, {
      resume: [{ interruptId: String(pending?.id), status: 'resolved', payload: { send: true } }],
    });
    expect(resumed.failure).toBeUndefined();
    expect(resumed.result?.newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: `${pending?.id} resolved: {"send":true}` }),
    ]);
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('describes a custom agent in /agent/capabilities', async () => {
    const body = (await (await fetch(`${echo.url}/agent/capabilities`)).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ framework: 'CUSTOM', supported: true, identity: { name: 'custom echo' } });
  });
});
