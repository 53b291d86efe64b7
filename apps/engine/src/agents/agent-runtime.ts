// The one seam between the run endpoint and an agent framework: the built-in LLM agent implements it
// today, LangGraph graphs and custom AG-UI agents plug in behind the same shape.
import type { AgentCapabilities, BaseEvent, RunAgentInput } from '@ag-ui/core';
import type { ThreadCaller } from '../threads/thread-scope.js';
import type { RunTrace } from '../tracing/run-trace.js';

/** A server-side tool, described the way a model sees it. */
export type AgentTool = {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** The agent's name for the MCP server the tool comes from (its spans say which server ran it). */
  server?: string;
};

export type ToolOutcome = { text: string; isError: boolean };

/** The MCP tools of the agent's servers: what any framework can list and call. */
export type AgentToolbox = {
  readonly tools: readonly AgentTool[];
  /** Never rejects for a tool failure (that becomes an error outcome the model can read); rejects only when aborted. */
  call: (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolOutcome>;
};

/** Tokens one model call used, as the provider counted them, and the model ("<provider>/<name>") when known: the manager prices it. */
export type TokenUsage = { inputTokens: number; outputTokens: number; model?: string };

export type AgentRunRequest = {
  input: RunAgentInput;
  /** Aborted when the client goes away: stop the model call and any tool call. */
  signal: AbortSignal;
  toolbox: AgentToolbox;
  /** The token's issuer and subject, when the run was authenticated: frameworks with their own memory scope threads by them. */
  caller?: ThreadCaller | undefined;
  /** Called after each model call the provider counted; the run's record sums them. */
  reportUsage?: (usage: TokenUsage) => void;
  /** The run's trace, when the agent's observability config turns tracing on: frameworks open model and tool spans in it. */
  trace?: RunTrace | undefined;
};

/**
 * Runs one AG-UI run and yields its events, from RUN_STARTED to RUN_FINISHED or RUN_ERROR.
 * A thrown error is turned into RUN_ERROR by the caller, which also checks the event order.
 */
export type AgentRuntime = {
  run: (request: AgentRunRequest) => AsyncIterable<BaseEvent>;
  /** What the framework adds to /agent/capabilities. */
  capabilities?: RuntimeCapabilities;
  /** Frees what the runtime holds (a checkpointer's pool), once the last run on its config is done. */
  close?: () => Promise<void>;
};

export type RuntimeCapabilities = {
  agui?: AgentCapabilities;
  /** JSON Schemas of the agent's own state (LangGraph state channels), when the framework knows them. */
  stateSchemas?: { input?: unknown; output?: unknown; state?: unknown };
};

/**
 * An error whose message and code are safe to show the client in RUN_ERROR. Its `cause`, what an
 * upstream said, is not: it is logged under an error id that RUN_ERROR carries instead.
 */
export class AgentRunError extends Error {
  override name = 'AgentRunError';
  constructor(
    message: string,
    readonly code: string,
    options?: { cause: unknown },
  ) {
    super(message, options);
  }
}
