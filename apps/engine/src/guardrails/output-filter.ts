// Filters a run's AG-UI events by the output rules, before any byte leaves the engine: the deltas of
// each stream (a text message, a tool call's arguments, a reasoning message) go through a guarded
// stream (guarded-stream.ts), which holds back at most `holdBack` characters; a stream's end, a tool
// result and the run's end send what it held. Messages snapshots' assistant messages and tool results'
// contents are checked as whole texts.
import {
  type BaseEvent,
  EventType,
  type Message,
  type MessagesSnapshotEvent,
  type TextMessageChunkEvent,
} from '@ag-ui/core';
import { guardrailBlockedEvent } from './blocked-run-error.js';
import { checkWholeText } from './check-text.js';
import type { CompiledRule, JudgeRule, LengthRule, MatchRule } from './compiled-rule.js';
import { type Stream, StreamGuard, type StreamRule, streamRules } from './guarded-stream.js';
import type { GuardrailHit, ModelJudge, ReportGuardrailHit } from './guardrail-types.js';

export type OutputRules = {
  match: readonly MatchRule[];
  streamRules: readonly StreamRule[];
  length: readonly LengthRule[];
  judge: readonly JudgeRule[];
  /** The match and length rules in their order, for the texts checked whole (snapshots, tool results). */
  wholeText: readonly CompiledRule[];
  /** The longest match of any output rule: the characters of a stream held back. */
  holdBack: number;
};

/** The output rules of `rules`, or undefined when there is none (the filter then costs nothing). */
export function selectOutputRules(
  rules: readonly CompiledRule[],
  judge: ModelJudge | undefined,
): OutputRules | undefined {
  const match = rules.filter((rule): rule is MatchRule => rule.type === 'match');
  const length = rules.filter((rule): rule is LengthRule => rule.type === 'length');
  // Without a judge a model_judge rule is skipped; on the output it can only log (the contract).
  const judgeRules =
    judge === undefined
      ? []
      : rules.filter((rule): rule is JudgeRule => rule.type === 'judge' && rule.action === 'log');
  if (match.length + length.length + judgeRules.length === 0) return undefined;
  const holdBack = Math.max(0, ...match.map((rule) => rule.windowChars - 1));
  const wholeText = rules.filter((rule) => rule.type !== 'judge');
  return { match, streamRules: streamRules(match), length, judge: judgeRules, wholeText, holdBack };
}

type ChunkType = EventType.TEXT_MESSAGE_CHUNK | EventType.TOOL_CALL_CHUNK | EventType.REASONING_MESSAGE_CHUNK;
const CHUNK_ID: Record<ChunkType, 'messageId' | 'toolCallId'> = {
  [EventType.TEXT_MESSAGE_CHUNK]: 'messageId',
  [EventType.TOOL_CALL_CHUNK]: 'toolCallId',
  [EventType.REASONING_MESSAGE_CHUNK]: 'messageId',
};

/** One run's filter state: its open streams, the judgements under way, and the hit that blocked it. */
class RunOutputGuard {
  readonly streams: StreamGuard;
  readonly text = new Map<string, Stream>();
  readonly tool = new Map<string, Stream>();
  readonly reasoning = new Map<string, Stream>();
  readonly judgements: Promise<unknown>[] = [];
  /** Aborts the judgements and snapshot checks still running when the run's events end. */
  private stopped: AbortController | undefined;
  private snapshotBlocked: GuardrailHit | undefined;

  constructor(
    private readonly rules: OutputRules,
    private readonly judge: ModelJudge | undefined,
    private readonly report: ReportGuardrailHit,
  ) {
    this.streams = new StreamGuard(rules.streamRules, rules.length, rules.holdBack, report);
  }

  // Created on first use: most runs never judge, and an AbortController per run costs.
  get signal(): AbortSignal {
    this.stopped ??= new AbortController();
    return this.stopped.signal;
  }

  stop(): void {
    this.stopped?.abort();
  }

  get blocked(): GuardrailHit | undefined {
    return this.streams.blocked ?? this.snapshotBlocked;
  }

  /** A new stream; a text message's is kept whole when an output judge reads it at its end. */
  create(textMessage: boolean): Stream {
    return this.streams.create(textMessage && this.rules.judge.length > 0);
  }

  open(streams: Map<string, Stream>, id: string, textMessage: boolean): Stream {
    let stream = streams.get(id);
    if (stream === undefined) {
      stream = this.create(textMessage);
      streams.set(id, stream);
    }
    return stream;
  }

  push(stream: Stream, delta: string): string {
    return this.streams.push(stream, delta);
  }

  flush(stream: Stream): string {
    return this.streams.flush(stream);
  }

  /** Starts judging a text message that ended; its hits are reported before the run's terminal event. */
  judgeMessage(stream: Stream): void {
    if (stream.whole === undefined || this.judge === undefined || stream.whole === '') return;
    const judgement = checkWholeText(this.rules.judge, stream.whole, this.judge, this.report, this.signal);
    // A judgement the run's end aborted reports nothing.
    this.judgements.push(judgement.catch(() => undefined));
  }

  /** The snapshot with its assistant messages checked as whole texts (a copy where redacted); undefined when blocked. */
  async checkSnapshot(event: MessagesSnapshotEvent): Promise<MessagesSnapshotEvent | undefined> {
    let changed = false;
    const messages: Message[] = [];
    for (const message of event.messages) {
      if (message.role !== 'assistant') {
        messages.push(message);
        continue;
      }
      let checked = message;
      if (typeof message.content === 'string') {
        const content = await this.checkWhole(message.content);
        if (content === undefined) return undefined;
        if (content !== message.content) checked = { ...checked, content };
      }
      if (message.toolCalls !== undefined) {
        const toolCalls = [];
        for (const call of message.toolCalls) {
          const args = await this.checkWhole(call.function.arguments);
          if (args === undefined) return undefined;
          toolCalls.push(
            args === call.function.arguments ? call : { ...call, function: { ...call.function, arguments: args } },
          );
        }
        if (toolCalls.some((call, index) => call !== message.toolCalls?.[index])) checked = { ...checked, toolCalls };
      }
      if (checked !== message) changed = true;
      messages.push(checked);
    }
    return changed ? { ...event, messages } : event;
  }

  /** A whole text by the match and length rules; undefined when blocked. */
  async checkWhole(text: string): Promise<string | undefined> {
    const verdict = await checkWholeText(this.rules.wholeText, text, undefined, this.report, this.signal);
    if (verdict.blocked !== undefined) this.snapshotBlocked = verdict.blocked;
    return verdict.blocked === undefined ? verdict.text : undefined;
  }
}

type ChunkStream = { type: ChunkType; id: string; stream: Stream };

function chunkEvent(type: ChunkType, id: string, delta: string): BaseEvent {
  return { type, [CHUNK_ID[type]]: id, delta } as BaseEvent;
}

/** The filtered events of one run (see AgentGuardrails.filterOutput). */
export async function* filterOutputEvents(
  events: AsyncIterable<BaseEvent>,
  rules: OutputRules,
  judge: ModelJudge | undefined,
  report: ReportGuardrailHit,
): AsyncGenerator<BaseEvent> {
  const guard = new RunOutputGuard(rules, judge, report);
  // The chunk stream the last chunk event belongs to: any other event ends it (as @ag-ui/client's
  // chunk expansion does), so its held-back rest goes out first.
  let chunk: ChunkStream | undefined;
  try {
    for await (const event of events) {
      if (chunk !== undefined && !continuesChunk(event, chunk)) {
        const rest = guard.flush(chunk.stream);
        if (guard.blocked !== undefined) break;
        if (rest !== '') yield chunkEvent(chunk.type, chunk.id, rest);
        guard.judgeMessage(chunk.stream);
        chunk = undefined;
      }
      switch (event.type) {
        case EventType.TEXT_MESSAGE_CONTENT:
        case EventType.TOOL_CALL_ARGS:
        case EventType.REASONING_MESSAGE_CONTENT: {
          const [streams, id] = streamOf(guard, event);
          const delta = String(event.delta ?? '');
          const released = guard.push(guard.open(streams, id, event.type === EventType.TEXT_MESSAGE_CONTENT), delta);
          if (guard.blocked !== undefined) break;
          if (released !== '') yield released === delta ? event : ({ ...event, delta: released } as BaseEvent);
          continue;
        }
        case EventType.TEXT_MESSAGE_END:
        case EventType.TOOL_CALL_END:
        case EventType.REASONING_MESSAGE_END:
        case EventType.TOOL_CALL_RESULT: {
          const [streams, id] = streamOf(guard, event);
          const stream = streams.get(id);
          if (stream !== undefined) {
            const rest = guard.flush(stream);
            if (guard.blocked !== undefined) break;
            if (event.type !== EventType.TOOL_CALL_RESULT) streams.delete(id);
            if (rest !== '') yield deltaEvent(event, id, rest);
            if (event.type === EventType.TEXT_MESSAGE_END) guard.judgeMessage(stream);
          }
          if (event.type !== EventType.TOOL_CALL_RESULT) {
            yield event;
            continue;
          }
          // A server-side tool's result goes to the client too: its bytes leave the engine like the
          // reply's (the tool_result rules checked it for the model already).
          const content = await guard.checkWhole(String(event.content ?? ''));
          if (content === undefined) break;
          yield content === event.content ? event : ({ ...event, content } as BaseEvent);
          continue;
        }
        case EventType.TEXT_MESSAGE_CHUNK:
        case EventType.TOOL_CALL_CHUNK:
        case EventType.REASONING_MESSAGE_CHUNK: {
          const type = event.type as ChunkType;
          const id = (event[CHUNK_ID[type]] as string | undefined) ?? chunk?.id;
          if (id === undefined) {
            yield event;
            continue;
          }
          const starts = chunk === undefined;
          chunk ??= { type, id, stream: guard.create(type === EventType.TEXT_MESSAGE_CHUNK) };
          const delta = (event as TextMessageChunkEvent).delta;
          const released = delta === undefined || delta === '' ? '' : guard.push(chunk.stream, delta);
          if (guard.blocked !== undefined) break;
          if (released !== '') yield released === delta ? event : ({ ...event, delta: released } as BaseEvent);
          else if (starts) {
            // The first chunk opens the message or tool call: it goes out, without the held-back delta.
            const { delta: _held, ...opening } = event as TextMessageChunkEvent;
            yield opening as BaseEvent;
          }
          continue;
        }
        case EventType.MESSAGES_SNAPSHOT: {
          const checked = await guard.checkSnapshot(event as MessagesSnapshotEvent);
          if (guard.blocked !== undefined) break;
          yield checked as BaseEvent;
          continue;
        }
        case EventType.RUN_FINISHED:
        case EventType.RUN_ERROR: {
          for (const [streams, type] of [
            [guard.text, EventType.TEXT_MESSAGE_CONTENT],
            [guard.tool, EventType.TOOL_CALL_ARGS],
            [guard.reasoning, EventType.REASONING_MESSAGE_CONTENT],
          ] as const) {
            for (const [id, stream] of streams) {
              const rest = guard.flush(stream);
              if (guard.blocked !== undefined) break;
              if (rest !== '') yield deltaEvent({ type } as BaseEvent, id, rest);
            }
            if (guard.blocked !== undefined) break;
          }
          if (guard.blocked !== undefined) break;
          await Promise.all(guard.judgements);
          yield event;
          continue;
        }
        default:
          yield event;
          continue;
      }
      // Only a blocking match leaves the switch.
      break;
    }
    if (guard.blocked !== undefined) yield guardrailBlockedEvent(guard.blocked);
  } finally {
    guard.stop();
  }
}

const STREAM_ID = {
  [EventType.TEXT_MESSAGE_CONTENT]: 'messageId',
  [EventType.TEXT_MESSAGE_END]: 'messageId',
  [EventType.REASONING_MESSAGE_CONTENT]: 'messageId',
  [EventType.REASONING_MESSAGE_END]: 'messageId',
  [EventType.TOOL_CALL_ARGS]: 'toolCallId',
  [EventType.TOOL_CALL_END]: 'toolCallId',
  [EventType.TOOL_CALL_RESULT]: 'toolCallId',
} as const;

function streamOf(guard: RunOutputGuard, event: BaseEvent): [Map<string, Stream>, string] {
  const key = STREAM_ID[event.type as keyof typeof STREAM_ID];
  const id = String(event[key]);
  if (key === 'toolCallId') return [guard.tool, id];
  const reasoning =
    event.type === EventType.REASONING_MESSAGE_CONTENT || event.type === EventType.REASONING_MESSAGE_END;
  return [reasoning ? guard.reasoning : guard.text, id];
}

/** The delta event of the stream `event` belongs to, carrying `delta`. */
function deltaEvent(event: BaseEvent, id: string, delta: string): BaseEvent {
  switch (event.type) {
    case EventType.TEXT_MESSAGE_CONTENT:
    case EventType.TEXT_MESSAGE_END:
      return { type: EventType.TEXT_MESSAGE_CONTENT, messageId: id, delta } as BaseEvent;
    case EventType.REASONING_MESSAGE_CONTENT:
    case EventType.REASONING_MESSAGE_END:
      return { type: EventType.REASONING_MESSAGE_CONTENT, messageId: id, delta } as BaseEvent;
    default:
      return { type: EventType.TOOL_CALL_ARGS, toolCallId: id, delta } as BaseEvent;
  }
}

function continuesChunk(event: BaseEvent, chunk: ChunkStream): boolean {
  if (event.type !== chunk.type) return false;
  const id = event[CHUNK_ID[chunk.type]];
  return id === undefined || id === chunk.id;
}
