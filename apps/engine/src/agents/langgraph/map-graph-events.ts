// LangGraph's event stream (streamEvents v2) as AG-UI events: node runs → STEP_STARTED/STEP_FINISHED,
// chat-model tokens → TEXT_MESSAGE_* and TOOL_CALL_* (tool calls parented to their message), tool runs →
// TOOL_CALL_RESULT. Messages a node returns without a streaming model (a model called without
// callbacks, or a node that writes an AIMessage itself) are sent whole when the node ends.
import { randomUUID } from 'node:crypto';
import { type BaseEvent, EventType } from '@ag-ui/core';
import type { TokenUsage } from '../agent-runtime.js';

/** The fields of a LangChain StreamEvent this mapping reads. */
export type GraphStreamEvent = {
  event: string;
  name: string;
  run_id: string;
  tags?: string[];
  metadata?: Record<string, unknown>;
  data: { chunk?: unknown; input?: unknown; output?: unknown };
};

type ToolCallLike = { id?: string; name?: string; args?: unknown };
type MessageLike = {
  id?: string;
  type?: string;
  content?: unknown;
  tool_calls?: ToolCallLike[];
  tool_call_chunks?: { id?: string; name?: string; args?: string; index?: number }[];
  tool_call_id?: string;
};
type StreamedCall = { id: string; name: string; args: string; started: boolean };
type ModelRun = { messageId: string; textOpen: boolean; streamed: boolean; calls: Map<string, StreamedCall> };

// Models tagged like this are internal to a node (a classifier, a summariser): their tokens are not the reply.
const NO_STREAM_TAGS = new Set(['nostream', 'langsmith:nostream']);

function asMessage(value: unknown): MessageLike | undefined {
  return typeof value === 'object' && value !== null ? (value as MessageLike) : undefined;
}

function readType(message: MessageLike): string | undefined {
  const legacy = (message as { _getType?: () => string })._getType;
  return message.type ?? (typeof legacy === 'function' ? legacy.call(message) : undefined);
}

export function readText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      const text = (part as { type?: string; text?: unknown } | null)?.text;
      return typeof text === 'string' ? text : '';
    })
    .join('');
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value ?? {});
  } catch {
    return String(value);
  }
}

/** The messages in a node's update: `{messages: m}` or `{messages: [m, …]}`. */
function readUpdateMessages(output: unknown): MessageLike[] {
  const messages = (output as { messages?: unknown } | null | undefined)?.messages;
  const list = Array.isArray(messages) ? messages : messages === undefined ? [] : [messages];
  return list.flatMap((item) => asMessage(item) ?? []);
}

/** LangChain's count on a finished model call's message (`usage_metadata`), when the provider gave one. */
function readUsage(output: unknown): TokenUsage | undefined {
  const usage = (output as { usage_metadata?: { input_tokens?: unknown; output_tokens?: unknown } } | null | undefined)
    ?.usage_metadata;
  const { input_tokens: inputTokens, output_tokens: outputTokens } = usage ?? {};
  return typeof inputTokens === 'number' && typeof outputTokens === 'number'
    ? { inputTokens, outputTokens }
    : undefined;
}

export function createGraphEventMapper(reportUsage?: (usage: TokenUsage) => void) {
  const stepDepth = new Map<string, number>();
  const stepRuns = new Map<string, string>();
  const models = new Map<string, ModelRun>();
  /** Tool call ids already started, with whether they were ended. */
  const toolCalls = new Map<string, { ended: boolean }>();
  const sentMessageIds = new Set<string>();
  const sentMessages = new WeakSet<object>();

  function* startToolCall(id: string, name: string, parentMessageId: string | undefined): Generator<BaseEvent> {
    toolCalls.set(id, { ended: false });
    yield {
      type: EventType.TOOL_CALL_START,
      toolCallId: id,
      toolCallName: name,
      ...(parentMessageId === undefined ? {} : { parentMessageId }),
    };
  }

  function* endToolCall(id: string): Generator<BaseEvent> {
    const call = toolCalls.get(id);
    if (call === undefined || call.ended) return;
    call.ended = true;
    yield { type: EventType.TOOL_CALL_END, toolCallId: id };
  }

  function markSent(message: MessageLike | undefined, ...ids: (string | undefined)[]) {
    if (message !== undefined) sentMessages.add(message);
    for (const id of [message?.id, ...ids]) if (id !== undefined) sentMessageIds.add(id);
  }

  /** A whole assistant message: its text, then its tool calls. */
  function* sendWholeMessage(message: MessageLike, messageId: string): Generator<BaseEvent> {
    const text = readText(message.content);
    if (text !== '') {
      yield { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' };
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: text };
      yield { type: EventType.TEXT_MESSAGE_END, messageId };
    }
    for (const call of message.tool_calls ?? []) {
      const id = call.id ?? `call_${randomUUID()}`;
      if (toolCalls.has(id) || call.name === undefined) continue;
      yield* startToolCall(id, call.name, messageId);
      const args = stringify(call.args);
      if (args !== '') yield { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: args };
      yield* endToolCall(id);
    }
    markSent(message, messageId);
  }

  function* streamChunk(run: ModelRun, chunk: MessageLike): Generator<BaseEvent> {
    const text = readText(chunk.content);
    if (text !== '') {
      if (!run.textOpen) {
        run.textOpen = true;
        yield { type: EventType.TEXT_MESSAGE_START, messageId: run.messageId, role: 'assistant' };
      }
      run.streamed = true;
      yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: run.messageId, delta: text };
    }
    for (const piece of chunk.tool_call_chunks ?? []) {
      const key = piece.index === undefined ? (piece.id ?? '0') : String(piece.index);
      let call = run.calls.get(key);
      if (call === undefined) {
        call = { id: piece.id ?? `call_${randomUUID()}`, name: '', args: '', started: false };
        run.calls.set(key, call);
      }
      run.streamed = true;
      call.name ||= piece.name ?? '';
      // A first fragment without an id got a made-up one; the real id, which the tool's result will
      // carry, replaces it as long as nothing was sent under the made-up one.
      if (!call.started && piece.id) call.id = piece.id;
      const delta = piece.args ?? '';
      call.args += delta;
      if (!call.started && call.name !== '') {
        call.started = true;
        yield* startToolCall(call.id, call.name, run.messageId);
        // Argument text that came before the name goes out now, in one piece.
        if (call.args !== '') yield { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta: call.args };
      } else if (call.started && delta !== '') {
        yield { type: EventType.TOOL_CALL_ARGS, toolCallId: call.id, delta };
      }
    }
  }

  function* endModel(run: ModelRun, output: MessageLike | undefined): Generator<BaseEvent> {
    if (!run.streamed && output !== undefined) {
      yield* sendWholeMessage(output, run.messageId);
      return;
    }
    if (run.textOpen) {
      run.textOpen = false;
      yield { type: EventType.TEXT_MESSAGE_END, messageId: run.messageId };
    }
    for (const call of run.calls.values()) if (call.started) yield* endToolCall(call.id);
    markSent(output, run.messageId);
  }

  function* sendToolResult(event: GraphStreamEvent): Generator<BaseEvent> {
    const output = asMessage(event.data.output);
    const input = event.data.input as { args?: unknown; id?: string } | undefined;
    const id = output?.tool_call_id ?? input?.id ?? `call_${event.run_id}`;
    if (!toolCalls.has(id)) {
      // A tool run no streamed model call announced (a node calling a tool itself): announce it now.
      yield* startToolCall(id, event.name, undefined);
      const args = stringify(input?.args ?? input);
      if (args !== '') yield { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta: args };
    }
    yield* endToolCall(id);
    const content = output?.content === undefined ? stringify(event.data.output) : readText(output.content);
    const messageId = output?.id ?? randomUUID();
    if (output !== undefined) markSent(output, messageId);
    yield { type: EventType.TOOL_CALL_RESULT, messageId, toolCallId: id, content, role: 'tool' };
  }

  function* sendUnsentMessages(output: unknown): Generator<BaseEvent> {
    for (const message of readUpdateMessages(output)) {
      if (readType(message) !== 'ai' || sentMessages.has(message)) continue;
      if (message.id !== undefined && sentMessageIds.has(message.id)) continue;
      yield* sendWholeMessage(message, message.id ?? randomUUID());
    }
  }

  // LangGraph's own nodes (__start__, which writes the input into the state) are not steps of the agent.
  function isNodeRun(event: GraphStreamEvent): boolean {
    return event.metadata?.langgraph_node === event.name && !event.name.startsWith('__');
  }

  return {
    *map(event: GraphStreamEvent): Generator<BaseEvent> {
      switch (event.event) {
        case 'on_chain_start': {
          if (!isNodeRun(event)) return;
          stepRuns.set(event.run_id, event.name);
          const depth = stepDepth.get(event.name) ?? 0;
          stepDepth.set(event.name, depth + 1);
          // Parallel runs of one node (Send fan-out) are one step for AG-UI, whose steps are named.
          if (depth === 0) yield { type: EventType.STEP_STARTED, stepName: event.name };
          return;
        }
        case 'on_chain_end': {
          const stepName = stepRuns.get(event.run_id);
          if (stepName === undefined) return;
          stepRuns.delete(event.run_id);
          yield* sendUnsentMessages(event.data.output);
          const depth = (stepDepth.get(stepName) ?? 1) - 1;
          stepDepth.set(stepName, depth);
          if (depth === 0) yield { type: EventType.STEP_FINISHED, stepName };
          return;
        }
        case 'on_chat_model_start': {
          if (event.tags?.some((tag) => NO_STREAM_TAGS.has(tag))) return;
          models.set(event.run_id, { messageId: randomUUID(), textOpen: false, streamed: false, calls: new Map() });
          return;
        }
        case 'on_chat_model_stream': {
          const run = models.get(event.run_id);
          const chunk = asMessage(event.data.chunk);
          if (run !== undefined && chunk !== undefined) yield* streamChunk(run, chunk);
          return;
        }
        case 'on_chat_model_end': {
          // Every model call counts, streamed or not (NO_STREAM_TAGS only hide its text).
          const usage = readUsage(event.data.output);
          if (usage !== undefined) reportUsage?.(usage);
          const run = models.get(event.run_id);
          if (run === undefined) return;
          models.delete(event.run_id);
          yield* endModel(run, asMessage(event.data.output));
          return;
        }
        case 'on_tool_end':
          yield* sendToolResult(event);
          return;
        default:
          return;
      }
    },
    /** Closes whatever an interrupt or an early end left open, so the run can finish cleanly. */
    *finish(): Generator<BaseEvent> {
      for (const run of models.values()) yield* endModel(run, undefined);
      models.clear();
      for (const id of toolCalls.keys()) yield* endToolCall(id);
      for (const [stepName, depth] of stepDepth) {
        if (depth > 0) yield { type: EventType.STEP_FINISHED, stepName };
      }
      stepDepth.clear();
      stepRuns.clear();
    },
  };
}
