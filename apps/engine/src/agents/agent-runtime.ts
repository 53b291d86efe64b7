// The one seam between the run endpoint and an agent framework: the built-in LLM agent implements it
// today, LangGraph graphs and custom AG-UI agents plug in behind the same shape.
import type { AgentCapabilities, BaseEvent, Interrupt, RunAgentInput } from '@ag-ui/core';
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
  /** The tool policy's approvals for this run (interrupts/tool-approvals.ts); absent, no call waits for one. */
  approvals?: ToolApprovals | undefined;
};

/** A tool call a run resumes: the answer to the interrupt its thread's earlier run ended with. */
export type ResumedToolCall = {
  interruptId: string;
  toolCallId: string;
  toolName: string;
  /** What to call the tool with (the model's arguments, or the human's edit); absent when the call was rejected. */
  approvedArguments?: Record<string, unknown> | undefined;
};

/** What becomes of a call the tool policy wants approved, and what the run reports about it. */
export type ApprovalOutcome = 'raised' | 'approved' | 'rejected' | 'unattended_rejected' | 'unattended_allowed';

export type ToolApprovals = {
  needs: (toolName: string) => boolean;
  /** `pause` ends the run with interrupts (a watched run); a run nobody watches `reject`s or `allow`s the call. */
  mode: 'pause' | 'reject' | 'allow';
  /** When an interrupt raised now stops being answerable. */
  expiresAt: () => Date;
  /** The calls this run resumes, in the order they were made. */
  resumed: readonly ResumedToolCall[];
  /** The thread's interrupts still open after this run's answers: the run ends with them again. */
  open: readonly Interrupt[];
  /** Counts the outcome and marks it on the run's trace. */
  report: (outcome: ApprovalOutcome, call: { toolName: string; toolCallId: string }) => void;
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
