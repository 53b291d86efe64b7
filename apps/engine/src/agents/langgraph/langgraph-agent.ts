// LANGGRAPH agents: a LangGraph.js graph from the operator's module (`path.js:export`), compiled or a
// builder, run with the engine's checkpointer so AG-UI threads keep their memory (LangGraph thread_id =
// the AG-UI threadId scoped by the agent and the caller's token issuer and subject). Each run sends the
// graph's state as STATE_SNAPSHOT at its start and end, and ends with an `interrupt` outcome when the
// graph stopped in interrupt(); the next run answers it through RunAgentInput.resume, which continues
// the graph's own checkpoint (graph-interrupts.ts).
import { type BaseEvent, EventType, type RunAgentInput } from '@ag-ui/core';
import type { Logger } from '@agentplane/server-kit';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { getInputTypeSchema, getOutputTypeSchema, getStateTypeSchema } from '@langchain/langgraph/zod/schema';
import type { AgentDb } from '../../database/agent-db.js';
import { scopedThreadId } from '../../threads/thread-scope.js';
import type { AgentRunRequest, AgentRuntime, AgentToolbox, RuntimeCapabilities } from '../agent-runtime.js';
import { AgentLoadError, describeValue, importAgentExport } from '../modules/load-agent-module.js';
import { type Checkpointer, createCheckpointer } from './create-checkpointer.js';
import { type EngineToolContext, runInEngineTools, withEngineTools } from './engine-tools.js';
import { buildResume, type GraphInterrupt, toGraphInterrupt } from './graph-interrupts.js';
import { createGraphEventMapper, type GraphStreamEvent } from './map-graph-events.js';
import { readRememberedThread, selectNewMessages } from './to-langchain-messages.js';
import { toLangChainTools } from './to-langchain-tools.js';
import { createGraphTracer } from './trace-graph-events.js';

type GraphConfig = { configurable: { thread_id: string }; signal?: AbortSignal };
type GraphState = {
  values: Record<string, unknown>;
  tasks: { interrupts?: GraphInterrupt[] }[];
};
/** The part of a compiled LangGraph graph (Pregel) the engine uses. */
type CompiledGraph = {
  checkpointer?: BaseCheckpointSaver | boolean;
  streamEvents: (input: unknown, options: GraphConfig & { version: 'v2' }) => AsyncIterable<GraphStreamEvent>;
  getState: (config: GraphConfig) => Promise<GraphState>;
};
type GraphBuilder = { compile: (options: { checkpointer: BaseCheckpointSaver }) => unknown };

function isCompiledGraph(value: unknown): value is CompiledGraph {
  const graph = value as Partial<Record<'streamEvents' | 'getState', unknown>> | null;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof graph?.streamEvents === 'function' &&
    typeof graph.getState === 'function'
  );
}

function isGraphBuilder(value: unknown): value is GraphBuilder {
  return typeof value === 'object' && value !== null && typeof (value as { compile?: unknown }).compile === 'function';
}

function notAGraph(value: unknown, reference: string): AgentLoadError {
  return new AgentLoadError(
    'wrong_type',
    `"${reference}" is ${describeValue(value)}, not a LangGraph graph (a StateGraph or its compile() result).`,
  );
}

/** A compiled graph with thread memory: a builder is compiled with `saver`, a graph without a checkpointer gets it. */
function prepareGraph(exported: CompiledGraph | GraphBuilder, saver: BaseCheckpointSaver, reference: string) {
  const graph = isCompiledGraph(exported) ? exported : exported.compile({ checkpointer: saver });
  if (!isCompiledGraph(graph)) throw notAGraph(graph, reference);
  // A graph compiled without one gets the engine's; `checkpointer: false` (no memory) is respected.
  if (graph.checkpointer === undefined || graph.checkpointer === null) graph.checkpointer = saver;
  return graph;
}

function readStateSchemas(graph: CompiledGraph): RuntimeCapabilities['stateSchemas'] {
  const read = (schemaOf: (graph: unknown) => unknown) => {
    try {
      return schemaOf(graph) ?? undefined;
    } catch {
      return undefined;
    }
  };
  const schemas = {
    input: read(getInputTypeSchema),
    output: read(getOutputTypeSchema),
    state: read(getStateTypeSchema),
  };
  return Object.values(schemas).some((schema) => schema !== undefined) ? schemas : undefined;
}

/** State for the client: JSON only, without the conversation, which AG-UI carries as messages. */
function toClientState(values: Record<string, unknown> | undefined): Record<string, unknown> {
  const { messages: _messages, ...rest } = values ?? {};
  try {
    return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** Client state keys whose value differs from the thread's: the client's edits, applied as an update. */
function readStateEdits(input: RunAgentInput, current: Record<string, unknown>): Record<string, unknown> {
  const state = input.state as unknown;
  if (typeof state !== 'object' || state === null || Array.isArray(state)) return {};
  return Object.fromEntries(
    Object.entries(state as Record<string, unknown>).filter(
      ([key, value]) => key !== 'messages' && JSON.stringify(value) !== JSON.stringify(current[key]),
    ),
  );
}

/** Pulls `source` inside the tool context, so graph code calling getMcpTools() during a run gets this agent's tools. */
async function* pullWithTools<T>(context: EngineToolContext, source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = runInEngineTools(context, () => source[Symbol.asyncIterator]());
  try {
    while (true) {
      const next = await runInEngineTools(context, () => iterator.next());
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

async function* runGraph(
  graph: CompiledGraph,
  tools: EngineToolContext,
  agentId: string,
  request: AgentRunRequest,
): AsyncGenerator<BaseEvent> {
  const { input, signal } = request;
  const { threadId, runId } = input;
  // Knowing someone's threadId never opens their graph thread, as with the engine's own thread store.
  const config: GraphConfig = { configurable: { thread_id: scopedThreadId(agentId, request.caller, threadId) } };
  const hasMemory = Boolean(graph.checkpointer);
  yield { type: EventType.RUN_STARTED, threadId, runId };

  const before = hasMemory ? await graph.getState(config) : undefined;
  const remembered = readRememberedThread(before?.values.messages);
  const current = toClientState(before?.values);
  yield { type: EventType.STATE_SNAPSHOT, snapshot: current };

  const resume = buildResume(input);
  const graphInput = resume ?? {
    ...readStateEdits(input, current),
    messages: selectNewMessages(input.messages, remembered),
  };
  const mapper = createGraphEventMapper(request.reportUsage);
  const tracer = request.trace === undefined ? undefined : createGraphTracer(request.trace, request.toolbox);
  const events = graph.streamEvents(graphInput, { ...config, signal, version: 'v2' });
  try {
    for await (const event of pullWithTools(tools, events)) {
      tracer?.observe(event);
      yield* mapper.map(event);
    }
  } finally {
    tracer?.finish();
  }
  yield* mapper.finish();

  const after = hasMemory ? await graph.getState(config) : undefined;
  yield { type: EventType.STATE_SNAPSHOT, snapshot: toClientState(after?.values) };
  const interrupts = (after?.tasks ?? []).flatMap((task) => task.interrupts ?? []).map(toGraphInterrupt);
  yield {
    type: EventType.RUN_FINISHED,
    threadId,
    runId,
    ...(interrupts.length > 0 ? { outcome: { type: 'interrupt', interrupts } } : {}),
  };
}

export type LangGraphAgentOptions = {
  /** Scopes thread ids, and names the agent's own checkpoint schema. */
  agentId: string;
  reference: string;
  agentsDir: string;
  version: number;
  toolbox: AgentToolbox;
  db: AgentDb | undefined;
  logger: Logger;
};

export async function loadLangGraphAgent(options: LangGraphAgentOptions): Promise<AgentRuntime> {
  const { reference } = options;
  const tools: EngineToolContext = { tools: toLangChainTools(options.toolbox) };
  const exported = await withEngineTools(tools, () => importAgentExport(reference, options.agentsDir, options.version));
  // The module is checked before the checkpointer is opened: a wrong export costs no connections.
  if (!isCompiledGraph(exported) && !isGraphBuilder(exported)) throw notAGraph(exported, reference);
  let checkpointer: Checkpointer;
  try {
    checkpointer = await createCheckpointer(options.db, options.agentId);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AgentLoadError(
      'load_failed',
      `The thread memory (LangGraph checkpointer) could not be set up: ${reason}`,
    );
  }
  let graph: CompiledGraph;
  try {
    graph = prepareGraph(exported, checkpointer.saver, reference);
  } catch (error) {
    await checkpointer.close();
    throw error;
  }
  options.logger.info({ graph: reference, memory: checkpointer.kind }, 'LangGraph graph loaded');
  const stateSchemas = readStateSchemas(graph);
  return {
    run: (request) => runGraph(graph, tools, options.agentId, request),
    capabilities: {
      agui: {
        tools: {
          supported: true,
          items: options.toolbox.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
          clientProvided: false,
        },
        state: { snapshots: true, deltas: false, memory: true, persistentState: checkpointer.kind === 'postgres' },
        humanInTheLoop: { supported: true, interrupts: true },
      },
      ...(stateSchemas === undefined ? {} : { stateSchemas }),
    },
    close: checkpointer.close,
  };
}
