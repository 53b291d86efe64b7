// LANGGRAPH agents end to end, consumed by HttpAgent (verifyEvents on): the example tool-using graph
// against the local OpenAI-compatible server and the real MCP "everything" server, and fixture graphs
// for thread memory (PostgreSQL checkpointer), and the example graph that interrupts.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { EventType, HttpAgent, type RunAgentParameters } from '@ag-ui/client';
import type { RunFinishedEvent } from '@ag-ui/core';
import { checkpointSchemaName } from '@agentplane/db/engine-roles';
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import {
  type FakeOpenAiServer,
  overrideEnvironment,
  sampleValue,
  scrapeMetrics,
  startFakeOpenAiServer,
  waitUntil,
} from '@agentplane/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { RunningEngine } from '../../start-engine.js';
import { ALLOW_EVERYTHING_STDIO, everythingStdioServer } from '../../testing/everything-server.js';
import { makeLangGraphEngineConfig } from '../../testing/module-engine-configs.js';
import { runWithClient } from '../../testing/run-with-client.js';
import { engineCredentialsFor, startFileEngine } from '../../testing/test-engine.js';
import { scopedThreadId } from '../../threads/thread-scope.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

let database: TestDatabase;
let model: FakeOpenAiServer;
let toolAgent: RunningEngine;
let memoryAgent: RunningEngine;
let approvalAgent: RunningEngine;
let restoreEnvironment = () => {};

/**
 * A file-mode engine whose runs and thread memory are in the database, through its agent's own role and
 * schema: the agent has its row, as every agent the manager made does, since a run is recorded or refused.
 */
async function startGraphEngine(
  agentsDir: string,
  graph: string,
  options: { tools?: boolean; env?: Record<string, string> } = {},
) {
  const workspace = await makeWorkspace(database.prisma);
  const agent = await makeAgent(database.prisma, workspace.id);
  const config = makeLangGraphEngineConfig(graph, {
    agentId: agent.id,
    workspaceId: workspace.id,
    mcpServers: options.tools ? [everythingStdioServer()] : [],
  });
  const { DATABASE_URL } = await engineCredentialsFor(database, config.agent.id);
  return startFileEngine(config, {
    env: { ENGINE_AGENTS_DIR: agentsDir, DATABASE_URL, ...ALLOW_EVERYTHING_STDIO, ...options.env },
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  model = await startFakeOpenAiServer();
  // The example graph reads its model settings from the environment when the engine imports it.
  restoreEnvironment = overrideEnvironment({
    OPENAI_BASE_URL: model.baseUrl,
    OPENAI_API_KEY: 'sk-graph',
    OPENAI_MODEL: 'fake-model',
  });
  [toolAgent, memoryAgent, approvalAgent] = await Promise.all([
    startGraphEngine(EXAMPLES, 'langgraph/tool-agent.js:graph', { tools: true }),
    startGraphEngine(FIXTURES, 'memory-graph.js:builder'),
    startGraphEngine(EXAMPLES, 'langgraph/approval-agent.js:graph', { env: { METRICS_PORT: '0' } }),
  ]);
});

afterAll(async () => {
  await Promise.all([toolAgent, memoryAgent, approvalAgent].map((engine) => engine?.shutdown()));
  await model?.close();
  await database?.drop();
  restoreEnvironment();
});

beforeEach(() => {
  model.requests.length = 0;
});

function newAgent(engine: RunningEngine, threadId = randomUUID()) {
  return new HttpAgent({ url: `${engine.url}/agent/run`, threadId });
}

async function say(agent: HttpAgent, content: string, parameters: RunAgentParameters = {}) {
  if (content !== '') agent.addMessage({ id: randomUUID(), role: 'user', content });
  return runWithClient(agent, parameters);
}

describe('a LangGraph graph (the example tool agent)', () => {
  it('streams a text reply between state snapshots, inside the node step', async () => {
    model.script({ text: ['Hel', 'lo ', 'there'] });
    const { events, types, result, failure } = await say(newAgent(toolAgent), 'hi');
    expect(failure).toBeUndefined();
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types[1]).toBe(EventType.STATE_SNAPSHOT);
    expect(types.slice(-2)).toEqual([EventType.STATE_SNAPSHOT, EventType.RUN_FINISHED]);
    expect(events.filter((event) => event.type === EventType.TEXT_MESSAGE_CONTENT).map((event) => event.delta)).toEqual(
      ['Hel', 'lo ', 'there'],
    );
    const steps = events.filter(
      (event) => event.type === EventType.STEP_STARTED || event.type === EventType.STEP_FINISHED,
    );
    expect(steps).toEqual([
      expect.objectContaining({ type: EventType.STEP_STARTED, stepName: 'agent' }),
      expect.objectContaining({ type: EventType.STEP_FINISHED, stepName: 'agent' }),
    ]);
    expect(result?.newMessages).toEqual([expect.objectContaining({ role: 'assistant', content: 'Hello there' })]);
    expect(model.requests[0]?.authorization).toBe('Bearer sk-graph');
    expect(model.requests[0]?.body.messages.at(-1)).toEqual({ role: 'user', content: 'hi' });
  });

  it('calls an MCP tool the model asks for, streams the call and its result, answers, and remembers it once', async () => {
    model.script(
      { toolCalls: [{ id: 'call_echo', name: 'everything__echo', arguments: ['{"mess', 'age":"hi"}'] }] },
      { text: ['It said hi.'] },
    );
    const agent = newAgent(toolAgent);
    const { types, result, failure, last } = await say(agent, 'echo hi');
    expect(failure).toBeUndefined();
    expect(last?.type).toBe(EventType.RUN_FINISHED);
    expect(types).toEqual(
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
        toolCalls: [
          { id: 'call_echo', type: 'function', function: { name: 'everything__echo', arguments: '{"message":"hi"}' } },
        ],
      }),
      expect.objectContaining({ role: 'tool', toolCallId: 'call_echo', content: 'Echo: hi' }),
      expect.objectContaining({ role: 'assistant', content: 'It said hi.' }),
    ]);
    // The model was offered the MCP tools, and saw the tool's result before answering.
    expect(model.requests[0]?.body.tools?.map((tool) => tool.function.name)).toContain('everything__echo');
    expect(model.requests[1]?.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_echo',
      content: 'Echo: hi',
    });

    // The next turn on the thread, with the client sending its whole history back: the model sees the
    // conversation once, from the graph's memory.
    model.script({ text: ['You are welcome.'] });
    const next = await say(agent, 'thanks');
    expect(next.failure).toBeUndefined();
    expect(model.requests[2]?.body.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
  });

  it('describes the graph in /agent/capabilities with its MCP tools', async () => {
    const body = (await (await fetch(`${toolAgent.url}/agent/capabilities`)).json()) as {
      tools: { items: { name: string }[] };
    };
    expect(body).toMatchObject({
      framework: 'LANGGRAPH',
      supported: true,
      state: { snapshots: true, memory: true, persistentState: true },
      humanInTheLoop: { interrupts: true },
    });
    expect(body.tools.items.map((tool) => tool.name)).toContain('everything__echo');
  });
});

describe('thread memory', () => {
  it('lets two runs on one thread share memory, without adding history sent again twice', async () => {
    const threadId = randomUUID();
    const agent = newAgent(memoryAgent, threadId);
    const first = await say(agent, 'my name is Ada');
    expect(first.failure).toBeUndefined();
    expect(first.result?.newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'I remember: my name is Ada' }),
    ]);
    // The same client sends its whole history again: the graph adds only the new user message.
    const second = await say(agent, 'what is my name?');
    expect(second.result?.newMessages).toEqual([
      expect.objectContaining({ content: 'I remember: my name is Ada | what is my name?' }),
    ]);
    // A client that knows nothing of the thread but its id is answered from the same memory.
    const stranger = await say(newAgent(memoryAgent, threadId), 'and now?');
    expect(stranger.result?.newMessages).toEqual([
      expect.objectContaining({ content: 'I remember: my name is Ada | what is my name? | and now?' }),
    ]);
    // …which lives in PostgreSQL, in the agent's own checkpoint schema, under the agent-scoped thread id.
    const { agent: served } = (await (await fetch(memoryAgent.url)).json()) as { agent: { id: string } };
    const rows = await database.prisma.$queryRawUnsafe<{ count: bigint }[]>(
      `SELECT count(*) AS count FROM "${checkpointSchemaName(served.id)}".checkpoints WHERE thread_id = $1`,
      scopedThreadId(served.id, undefined, threadId),
    );
    expect(Number(rows[0]?.count)).toBeGreaterThan(0);
  });

  it('keeps threads apart', async () => {
    await say(newAgent(memoryAgent), 'secret one');
    const other = await say(newAgent(memoryAgent), 'hello');
    expect(other.result?.newMessages).toEqual([expect.objectContaining({ content: 'I remember: hello' })]);
  });
});

describe('interrupts', () => {
  it('ends a run of the example graph that reaches interrupt() with an interrupt outcome, and resumes it with the answer', async () => {
    const agent = newAgent(approvalAgent);
    const first = await say(agent, 'ship it');
    expect(first.failure).toBeUndefined();
    expect(first.last).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: {
        type: 'interrupt',
        interrupts: [
          {
            id: expect.any(String),
            reason: 'graph_interrupt',
            message: 'Deploy to production?',
            metadata: { value: 'Deploy to production?' },
          },
        ],
      },
    });
    expect(first.result?.newMessages).toEqual([]);
    // Counted as the engine counts its own tool approvals (once the run's last event was handled).
    const raised = async () =>
      sampleValue(await scrapeMetrics(approvalAgent.metricsUrl as string), 'agentplane_interrupts_total', {
        reason: 'graph_interrupt',
        outcome: 'raised',
      });
    await waitUntil(async () => (await raised()) === 1, { what: 'the graph interrupt to be counted' });
    // The run's record says it waits for input, once the run is stored (after its last event was sent).
    const recordUrl = `${approvalAgent.url}/agent/runs/${(first.last as RunFinishedEvent).runId}`;
    const readStatus = async () => ((await (await fetch(recordUrl)).json()) as { status: string }).status;
    await waitUntil(async () => (await readStatus()) !== 'running', { what: 'the interrupted run to be stored' });
    expect(await readStatus()).toBe('input_required');
    expect(agent.pendingInterrupts).toHaveLength(1);
    const [pending] = agent.pendingInterrupts;

    const resumed = await say(agent, '', {
      resume: [{ interruptId: String(pending?.id), status: 'resolved', payload: 'yes, go' }],
    });
    expect(resumed.failure).toBeUndefined();
    expect(resumed.last).toMatchObject({ type: EventType.RUN_FINISHED });
    expect((resumed.last as { outcome?: { type: string } }).outcome?.type).not.toBe('interrupt');
    expect(resumed.result?.newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'Decision: yes, go' }),
    ]);
    // The graph's own state reached the client through STATE_SNAPSHOT.
    expect(agent.state).toEqual({ decision: 'yes, go' });
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('shows the JSON Schema of a graph state declared with zod in /agent/capabilities', async () => {
    const body = (await (await fetch(`${approvalAgent.url}/agent/capabilities`)).json()) as {
      input: { state_schema?: { properties?: Record<string, unknown> } };
    };
    expect(Object.keys(body.input.state_schema?.properties ?? {})).toEqual(
      expect.arrayContaining(['messages', 'decision']),
    );
  });
});
