// CUSTOM agents: the operator's module exports a factory `(ctx) => AbstractAgent` (from @ag-ui/client).
// The engine calls it once per config version and relays the agent's `run(input)` events; the run
// endpoint's order guard closes a misbehaving stream with RUN_ERROR, and closing unsubscribes here.
import type { AgentCapabilities, BaseEvent, RunAgentInput } from '@ag-ui/core';
import { mapEngineConfigSecrets, type TEngineConfig } from '@agentplane/contracts';
import type { Logger } from '@agentplane/server-kit';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { AgentRunRequest, AgentRuntime, AgentTool, AgentToolbox, ToolOutcome } from '../agent-runtime.js';
import { toLangChainTools } from '../langgraph/to-langchain-tools.js';
import { AgentLoadError, describeValue, importAgentExport } from '../modules/load-agent-module.js';

/** What the factory receives. */
export type CustomAgentContext = {
  /** The engine config of this agent, secrets redacted. */
  config: TEngineConfig;
  /** The agent's MCP tools, as a model sees them (`<server>__<tool>`). */
  tools: readonly AgentTool[];
  /** Calls one of `tools`; a tool failure resolves as an error outcome, only an abort rejects. */
  callTool: (name: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }) => Promise<ToolOutcome>;
  /** The same tools as LangChain tools. */
  getMcpTools: () => StructuredToolInterface[];
  logger: Logger;
};

type Subscription = { unsubscribe: () => void };
type EventSource = {
  subscribe: (observer: {
    next: (event: BaseEvent) => void;
    error: (error: unknown) => void;
    complete: () => void;
  }) => Subscription;
};
type RunnableAgent = {
  run: (input: RunAgentInput) => EventSource;
  getCapabilities?: () => Promise<AgentCapabilities>;
};

function isRunnableAgent(value: unknown): value is RunnableAgent {
  return typeof value === 'object' && value !== null && typeof (value as { run?: unknown }).run === 'function';
}

const NEVER_ABORTED = new AbortController().signal;

/** An Observable of events as an async iterable; leaving the loop (or an abort) unsubscribes. */
export async function* relayEvents(source: EventSource, signal: AbortSignal): AsyncGenerator<BaseEvent> {
  const queue: BaseEvent[] = [];
  let finished = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  const subscription = source.subscribe({
    next: (event) => {
      queue.push(event);
      notify();
    },
    error: (error) => {
      failure = { error };
      notify();
    },
    complete: () => {
      finished = true;
      notify();
    },
  });
  const stop = () => {
    finished = true;
    notify();
  };
  signal.addEventListener('abort', stop, { once: true });
  try {
    while (true) {
      const next = queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (failure !== undefined) throw failure.error;
      if (finished || signal.aborted) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    signal.removeEventListener('abort', stop);
    subscription.unsubscribe();
  }
}

export type CustomAgentOptions = {
  config: TEngineConfig;
  reference: string;
  agentsDir: string;
  version: number;
  toolbox: AgentToolbox;
  logger: Logger;
};

export async function loadCustomAgent(options: CustomAgentOptions): Promise<AgentRuntime> {
  const { reference, toolbox } = options;
  const factory = await importAgentExport(reference, options.agentsDir, options.version);
  if (typeof factory !== 'function') {
    throw new AgentLoadError(
      'wrong_type',
      `"${reference}" is ${describeValue(factory)}, not a factory function (ctx) => AbstractAgent.`,
    );
  }
  const langChainTools = toLangChainTools(toolbox);
  const context: CustomAgentContext = {
    config: mapEngineConfigSecrets(options.config, () => '[redacted]'),
    tools: toolbox.tools,
    callTool: (name, args, callOptions) => toolbox.call(name, args, callOptions?.signal ?? NEVER_ABORTED),
    getMcpTools: () => [...langChainTools],
    logger: options.logger.child({ agent_module: reference }),
  };
  let agent: unknown;
  try {
    agent = await (factory as (ctx: CustomAgentContext) => unknown)(context);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AgentLoadError('load_failed', `The factory "${reference}" threw: ${reason}`);
  }
  if (!isRunnableAgent(agent)) {
    throw new AgentLoadError(
      'wrong_type',
      `The factory "${reference}" returned ${describeValue(agent)}, not an AG-UI AbstractAgent (no run(input) method).`,
    );
  }
  const capabilities = await agent.getCapabilities?.().catch((error: unknown) => {
    options.logger.warn({ err: error }, 'the custom agent could not describe its capabilities');
    return undefined;
  });
  return {
    // A generator, so that run() throwing at once still reaches the order guard as a RUN_ERROR.
    run: async function* (request: AgentRunRequest) {
      yield* relayEvents(agent.run(request.input), request.signal);
    },
    ...(capabilities === undefined ? {} : { capabilities: { agui: capabilities } }),
  };
}
