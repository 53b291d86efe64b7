// A LangGraph run's spans, read off the same streamEvents the AG-UI mapping reads: a span per node
// run, and under it `chat` per model call (with LangChain's usage count) and `execute_tool` per tool
// run. A span still open when the stream stops (an error, an abort) ends as failed.
import type { Context } from '@opentelemetry/api';
import type { OpenSpan, RunTrace } from '../../tracing/run-trace.js';
import type { AgentToolbox } from '../agent-runtime.js';
import type { GraphStreamEvent } from './map-graph-events.js';

type ChatOutput = {
  usage_metadata?: { input_tokens?: number; output_tokens?: number };
  response_metadata?: { finish_reason?: string };
  tool_calls?: unknown[];
};

const metadataText = (event: GraphStreamEvent, key: string) => {
  const value = event.metadata?.[key];
  return typeof value === 'string' ? value : undefined;
};

export function createGraphTracer(trace: RunTrace, toolbox: AgentToolbox) {
  const open = new Map<string, OpenSpan<unknown>>();
  // streamEvents says which node a model or tool call ran in (metadata), not which run of it: the
  // latest open run of that node is its parent (a node runs once per step).
  const nodeRuns = new Map<string, string[]>();
  const parentOf = (event: GraphStreamEvent): Context | undefined => {
    const node = metadataText(event, 'langgraph_node');
    const runId = node === undefined ? undefined : nodeRuns.get(node)?.at(-1);
    return runId === undefined ? undefined : open.get(runId)?.context;
  };
  const close = (runId: string, end: (span: OpenSpan<unknown>) => void) => {
    const span = open.get(runId);
    if (span === undefined) return;
    open.delete(runId);
    end(span);
  };

  return {
    observe(event: GraphStreamEvent): void {
      const isNode = event.metadata?.langgraph_node === event.name && !event.name.startsWith('__');
      switch (event.event) {
        case 'on_chain_start':
          if (!isNode) return;
          open.set(event.run_id, trace.startNode(event.name) as OpenSpan<unknown>);
          nodeRuns.set(event.name, [...(nodeRuns.get(event.name) ?? []), event.run_id]);
          return;
        case 'on_chain_end':
          if (!isNode) return;
          close(event.run_id, (span) => span.end(undefined));
          nodeRuns.set(
            event.name,
            (nodeRuns.get(event.name) ?? []).filter((id) => id !== event.run_id),
          );
          return;
        case 'on_chat_model_start': {
          const model = {
            provider: metadataText(event, 'ls_provider') ?? 'unknown',
            name: metadataText(event, 'ls_model_name') ?? event.name,
          };
          const chat = trace.startChat(model, () => event.data.input, parentOf(event));
          open.set(event.run_id, chat as OpenSpan<unknown>);
          return;
        }
        case 'on_chat_model_end': {
          const output = (event.data.output ?? {}) as ChatOutput;
          const reason =
            output.response_metadata?.finish_reason ?? ((output.tool_calls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
          close(event.run_id, (span) =>
            span.end({
              inputTokens: output.usage_metadata?.input_tokens,
              outputTokens: output.usage_metadata?.output_tokens,
              finishReasons: [reason],
              output: () => event.data.output,
            }),
          );
          return;
        }
        case 'on_tool_start': {
          const server = toolbox.tools.find((tool) => tool.name === event.name)?.server;
          const callId = metadataText(event, 'tool_call_id');
          const tool = trace.startTool(
            { name: event.name, id: callId, server, arguments: () => event.data.input },
            parentOf(event),
          );
          open.set(event.run_id, tool as OpenSpan<unknown>);
          return;
        }
        case 'on_tool_end':
          close(event.run_id, (span) => {
            const status = (event.data.output as { status?: string } | undefined)?.status;
            span.end({ isError: status === 'error', result: () => event.data.output });
          });
          return;
        case 'on_tool_error':
          close(event.run_id, (span) => span.fail(undefined, 'tool_error'));
          return;
      }
    },
    /** Ends what the stream left open: it stopped before their end events came. */
    finish(): void {
      for (const span of open.values()) span.fail(undefined, 'aborted');
      open.clear();
    },
  };
}
