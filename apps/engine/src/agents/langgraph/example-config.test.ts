// examples/langgraph-agent.yaml and langgraph-approval-agent.yaml run as their headers say: file-mode
// engines without a database, serving the example graphs (the first against the local OpenAI-compatible
// server), consumed by HttpAgent (verifyEvents on).
// A suite of its own: an engine imports a graph module once per config version, so in a module registry
// shared with another engine this one would run that engine's copy, with that engine's MCP tools bound.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventType, HttpAgent } from '@ag-ui/client';
import { type FakeOpenAiServer, overrideEnvironment, startFakeOpenAiServer } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import { runWithClient } from '../../testing/run-with-client.js';
import { startTestEngine } from '../../testing/test-engine.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples', import.meta.url));
const SYSTEM_PROMPT = { role: 'system', content: 'You are a helpful assistant. Use the tools when they help.' };

let model: FakeOpenAiServer;
let engine: RunningEngine;
let approvalEngine: RunningEngine;
let restoreEnvironment = () => {};

beforeAll(async () => {
  model = await startFakeOpenAiServer();
  // The example graph reads its model settings from the environment when the engine imports it.
  restoreEnvironment = overrideEnvironment({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'sk-example',
    OPENAI_MODEL: 'llama3.1',
  });
  engine = await startTestEngine({
    ENGINE_CONFIG_FILE: path.join(EXAMPLES, 'langgraph-agent.yaml'),
    ENGINE_AGENTS_DIR: EXAMPLES,
  });
  approvalEngine = await startTestEngine({
    ENGINE_CONFIG_FILE: path.join(EXAMPLES, 'langgraph-approval-agent.yaml'),
    ENGINE_AGENTS_DIR: EXAMPLES,
  });
});

afterAll(async () => {
  await engine?.shutdown();
  await approvalEngine?.shutdown();
  await model?.close();
  restoreEnvironment();
});

describe('the example LangGraph config', () => {
  it('streams the reply of the model the environment names, inside the graph step, and remembers the thread', async () => {
    const agent = new HttpAgent({ url: `${engine.url}/agent/run`, threadId: randomUUID() });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'who are you?' });
    model.script({ text: ['Hi, ', 'I am the example.'] });

    const first = await runWithClient(agent);
    expect(first.failure).toBeUndefined();
    expect(first.types).toEqual([
      EventType.RUN_STARTED,
      EventType.STATE_SNAPSHOT,
      EventType.STEP_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.STEP_FINISHED,
      EventType.STATE_SNAPSHOT,
      EventType.RUN_FINISHED,
    ]);
    expect(first.events[2]).toMatchObject({ stepName: 'agent' });
    expect(first.result?.newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'Hi, I am the example.' }),
    ]);
    // The graph's own call: its system prompt, the settings it read, and no tools, as the config has no MCP server.
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.authorization).toBe('Bearer sk-example');
    expect(model.requests[0]?.body).toMatchObject({ model: 'llama3.1', stream: true });
    expect(model.requests[0]?.body.tools).toBeUndefined();
    expect(model.requests[0]?.body.messages).toEqual([SYSTEM_PROMPT, { role: 'user', content: 'who are you?' }]);

    // Without a database the thread's memory lives in the process: a new client on the same thread sends only
    // its next message, and the model still sees the whole conversation.
    const sameThread = new HttpAgent({ url: `${engine.url}/agent/run`, threadId: agent.threadId });
    sameThread.addMessage({ id: randomUUID(), role: 'user', content: 'thanks' });
    model.script({ text: ['Any time.'] });
    const second = await runWithClient(sameThread);
    expect(second.failure).toBeUndefined();
    expect(second.result?.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Any time.' })]);
    expect(model.requests[1]?.body.messages).toEqual([
      SYSTEM_PROMPT,
      { role: 'user', content: 'who are you?' },
      { role: 'assistant', content: 'Hi, I am the example.' },
      { role: 'user', content: 'thanks' },
    ]);
  });
});

describe('the example LangGraph approval config', () => {
  it('ends a run with the graph interrupt, and resumes the graph from its in-process checkpoint', async () => {
    const agent = new HttpAgent({ url: `${approvalEngine.url}/agent/run`, threadId: randomUUID() });
    agent.addMessage({ id: randomUUID(), role: 'user', content: 'ship it' });
    const first = await runWithClient(agent);
    expect(first.failure).toBeUndefined();
    expect(first.last).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'interrupt', interrupts: [{ reason: 'graph_interrupt', message: 'Deploy to production?' }] },
    });
    const [pending] = agent.pendingInterrupts;

    const resumed = await runWithClient(agent, {
      resume: [{ interruptId: String(pending?.id), status: 'resolved', payload: 'no, wait' }],
    });
    expect(resumed.failure).toBeUndefined();
    expect(resumed.result?.newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'Decision: no, wait' }),
    ]);
    expect(agent.pendingInterrupts).toEqual([]);
  });
});
