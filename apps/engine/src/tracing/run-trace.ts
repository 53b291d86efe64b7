// The spans of one run, following the GenAI conventions: `invoke_agent {agent}` for the run, and under
// it (or under a LangGraph node's span) `chat {model}` per model call and `execute_tool {tool}` per tool
// call. Prompt, completion and tool text are personal data: recorded only when the agent's
// observability config turns capture_content on.
import type { RunAgentInput } from '@ag-ui/core';
import type { TEngineConfig } from '@agentplane/contracts';
import { formatTraceresponse } from '@agentplane/server-kit';
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { GEN_AI, LANGGRAPH_NODE, MCP } from './gen-ai-attributes.js';

export type RunTraceSettings = { tracer: Tracer; agent: TEngineConfig['agent']; captureContent: boolean };

export type ChatOutcome = {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  finishReasons: string[];
  /** What the model answered; only recorded with content capture on. */
  output?: () => unknown;
};

/** A span in progress. Ending it twice is harmless: a generator stopped early may reach both ends. */
export type OpenSpan<Outcome> = {
  /** Where child spans go. */
  context: Context;
  end: (outcome: Outcome) => void;
  fail: (error: unknown, type?: string) => void;
};

export type RunTrace = {
  traceId: string;
  spanId: string;
  /** The W3C Trace Context Level 2 response header value for the run's span. */
  traceresponse: string;
  startChat: (
    model: { provider: string; name: string },
    input: () => unknown,
    parent?: Context,
  ) => OpenSpan<ChatOutcome>;
  startTool: (
    call: { name: string; id?: string | undefined; server?: string | undefined; arguments: () => unknown },
    parent?: Context,
  ) => OpenSpan<{ isError: boolean; result: () => unknown }>;
  startNode: (name: string, parent?: Context) => OpenSpan<void>;
  /** Marks a moment of the run on its span (an interrupt raised or answered). */
  addEvent: (name: string, attributes: Attributes) => void;
  /** Ends the run's span: failed with `errorType` when the run ended in RUN_ERROR or threw. */
  end: (errorType?: string) => void;
};

function errorTypeOf(error: unknown): string {
  if (error instanceof Error) return (error as { code?: unknown }).code?.toString() ?? error.name;
  return 'unknown';
}

function openSpan<Outcome>(
  span: Span,
  context: Context,
  onEnd: (span: Span, outcome: Outcome) => void,
): OpenSpan<Outcome> {
  let ended = false;
  return {
    context: trace.setSpan(context, span),
    end: (outcome) => {
      if (ended) return;
      ended = true;
      onEnd(span, outcome);
      span.end();
    },
    fail: (error, type) => {
      if (ended) return;
      ended = true;
      span.setAttribute(ATTR_ERROR_TYPE, type ?? errorTypeOf(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

function contentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function startRunTrace(
  settings: RunTraceSettings,
  input: RunAgentInput,
  parent: Context = ROOT_CONTEXT,
): RunTrace {
  const { tracer, agent, captureContent } = settings;
  const runSpan = tracer.startSpan(
    `invoke_agent ${agent.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [GEN_AI.OPERATION_NAME]: 'invoke_agent',
        [GEN_AI.AGENT_ID]: agent.id,
        [GEN_AI.AGENT_NAME]: agent.name,
        [GEN_AI.CONVERSATION_ID]: input.threadId,
        'agentplane.run.id': input.runId,
        'agentplane.agent.framework': agent.framework,
      },
    },
    parent,
  );
  const run = openSpan<void>(runSpan, parent, () => undefined);
  const spanContext = runSpan.spanContext();
  const start = (name: string, attributes: Attributes, under: Context | undefined) => {
    const context = under ?? run.context;
    return { span: tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, context), context };
  };

  return {
    traceId: spanContext.traceId,
    spanId: spanContext.spanId,
    traceresponse: formatTraceresponse(spanContext),
    startChat: (model, messages, under) => {
      const { span, context } = start(
        `chat ${model.name}`,
        {
          [GEN_AI.OPERATION_NAME]: 'chat',
          [GEN_AI.PROVIDER_NAME]: model.provider,
          [GEN_AI.SYSTEM]: model.provider,
          [GEN_AI.REQUEST_MODEL]: model.name,
          [GEN_AI.CONVERSATION_ID]: input.threadId,
          ...(captureContent ? { [GEN_AI.INPUT_MESSAGES]: contentText(messages()) } : {}),
        },
        under,
      );
      return openSpan<ChatOutcome>(span, context, (ended, outcome) => {
        ended.setAttribute(GEN_AI.RESPONSE_FINISH_REASONS, outcome.finishReasons);
        if (outcome.inputTokens !== undefined) ended.setAttribute(GEN_AI.USAGE_INPUT_TOKENS, outcome.inputTokens);
        if (outcome.outputTokens !== undefined) ended.setAttribute(GEN_AI.USAGE_OUTPUT_TOKENS, outcome.outputTokens);
        if (captureContent && outcome.output !== undefined) {
          ended.setAttribute(GEN_AI.OUTPUT_MESSAGES, contentText(outcome.output()));
        }
      });
    },
    startTool: (call, under) => {
      const { span, context } = start(
        `execute_tool ${call.name}`,
        {
          [GEN_AI.OPERATION_NAME]: 'execute_tool',
          [GEN_AI.TOOL_NAME]: call.name,
          ...(call.id === undefined ? {} : { [GEN_AI.TOOL_CALL_ID]: call.id }),
          ...(call.server === undefined
            ? {}
            : { [GEN_AI.TOOL_TYPE]: 'extension', [MCP.SERVER_NAME]: call.server, [MCP.METHOD_NAME]: 'tools/call' }),
          ...(captureContent ? { [GEN_AI.TOOL_CALL_ARGUMENTS]: contentText(call.arguments()) } : {}),
        },
        under,
      );
      return openSpan<{ isError: boolean; result: () => unknown }>(span, context, (ended, outcome) => {
        // A tool's error result is an answer the model reads, but still a failed call.
        if (outcome.isError) {
          ended.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
          ended.setStatus({ code: SpanStatusCode.ERROR });
        }
        if (captureContent) ended.setAttribute(GEN_AI.TOOL_CALL_RESULT, contentText(outcome.result()));
      });
    },
    startNode: (name, under) => {
      const context = under ?? run.context;
      const span = tracer.startSpan(name, { attributes: { [LANGGRAPH_NODE]: name } }, context);
      return openSpan<void>(span, context, () => undefined);
    },
    addEvent: (name, attributes) => {
      runSpan.addEvent(name, attributes);
    },
    end: (errorType) => {
      if (errorType === undefined) run.end();
      else run.fail(undefined, errorType);
    },
  };
}
