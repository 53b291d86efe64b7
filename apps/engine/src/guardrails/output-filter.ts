// Filters a run's AG-UI events by the output rules, before any byte leaves the engine. Each stream (a
// text message, a tool call's arguments, a reasoning message) keeps its unsent tail: after a delta the
// unsent text is checked, and all of it but the last `holdBack` characters goes out. A match needs at
// most holdBack + 1 characters from its start to be decided (compiled-rule.ts), so no match, however
// the deltas split it, can leave the engine before the filter has seen all of it.
import {
  type BaseEvent,
  EventType,
  type Message,
  type MessagesSnapshotEvent,
  type TextMessageChunkEvent,
} from '@ag-ui/core';
import { GUARDRAIL_BLOCKED_CODE, GUARDRAIL_MATCHED_TEXT_MAX_LENGTH } from '@agentplane/contracts';
import { checkWholeText, cutText } from './check-text.js';
import { type CompiledRule, type JudgeRule, type LengthRule, type MatchRule, ruleHit } from './compiled-rule.js';
import type { GuardrailHit, ModelJudge, ReportGuardrailHit } from './guardrail-types.js';
import { applyMatchRules } from './match-rules.js';

/**
 * Already sent characters kept before the unsent tail: what the detectors' look-behinds read (a word
 * boundary, a digit before a number; none reads more than two characters).
 */
const CONTEXT_CHARS = 8;

type Stream = {
  /** Up to CONTEXT_CHARS sent characters, then the unsent ones. */
  buffer: string;
  /** Where the unsent characters start in `buffer`. */
  sent: number;
  /** Characters the stream has had from the agent (max_length). */
  received: number;
  /** A max_length rule redacted the stream: the rest of it is dropped. */
  cut: boolean;
  /** The max_length rules that fired already, by index: each reports once per stream. */
  lengthFired: boolean[] | undefined;
  /** What was sent of a text message, when an output judge reads it at the message's end. */
  whole: string | undefined;
};

export type OutputRules = {
  match: readonly MatchRule[];
  length: readonly LengthRule[];
  judge: readonly JudgeRule[];
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
  return { match, length, judge: judgeRules, holdBack };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The RUN_ERROR of a run a guardrail stopped (its output here, its input in runs/guarded-run.ts). */
export function blockedError(hit: GuardrailHit): BaseEvent {
  return {
    type: EventType.RUN_ERROR,
    message: `Blocked by guardrail "${hit.guardrail.name}" (rule "${hit.rule.name}").`,
    code: GUARDRAIL_BLOCKED_CODE,
  } as BaseEvent;
}

type ChunkType = EventType.TEXT_MESSAGE_CHUNK | EventType.TOOL_CALL_CHUNK | EventType.REASONING_MESSAGE_CHUNK;
const CHUNK_ID: Record<ChunkType, 'messageId' | 'toolCallId'> = {
  [EventType.TEXT_MESSAGE_CHUNK]: 'messageId',
  [EventType.TOOL_CALL_CHUNK]: 'toolCallId',
  [EventType.REASONING_MESSAGE_CHUNK]: 'messageId',
};

/** One run's filter state: its open streams, the judgements under way, and the hit that blocked it. */
class RunOutputGuard {
  blocked: GuardrailHit | undefined;
  readonly text = new Map<string, Stream>();
  readonly tool = new Map<string, Stream>();
  readonly reasoning = new Map<string, Stream>();
  readonly judgements: Promise<unknown>[] = [];
  readonly stop = new AbortController();

  constructor(
    private readonly rules: OutputRules,
    private readonly judge: ModelJudge | undefined,
    private readonly report: ReportGuardrailHit,
  ) {}

  /** A new stream; `judged` for a text message, which an output judge reads at its end. */
  create(judged: boolean): Stream {
    const whole = judged && this.rules.judge.length > 0 ? '' : undefined;
    return { buffer: '', sent: 0, received: 0, cut: false, lengthFired: undefined, whole };
  }

  open(streams: Map<string, Stream>, id: string, judged: boolean): Stream {
    let stream = streams.get(id);
    if (stream === undefined) {
      stream = this.create(judged);
      streams.set(id, stream);
    }
    return stream;
  }

  /** The part of `delta` (and of what was held back) that may leave now; '' when none or blocked. */
  push(stream: Stream, delta: string): string {
    if (stream.cut) return '';
    let accepted = delta;
    if (this.rules.length.length > 0) accepted = this.limitLength(stream, delta);
    if (this.blocked !== undefined) return '';
    stream.buffer += accepted;
    // Nothing can leave before the unsent text is longer than the hold-back: skip the scan.
    if (stream.buffer.length - stream.sent <= this.rules.holdBack) return '';
    return this.release(stream, false);
  }

  /** Everything held back of a stream that ends. */
  flush(stream: Stream): string {
    return stream.buffer.length > stream.sent ? this.release(stream, true) : '';
  }

  private limitLength(stream: Stream, delta: string): string {
    const before = stream.received;
    stream.received += delta.length;
    let accepted = delta;
    this.rules.length.forEach((rule, index) => {
      if (this.blocked !== undefined || stream.received <= rule.maxChars || stream.lengthFired?.[index]) return;
      stream.lengthFired ??= [];
      stream.lengthFired[index] = true;
      const allowed = Math.max(0, rule.maxChars - before);
      const hit = ruleHit(rule.identity, 'length', delta.slice(allowed, allowed + GUARDRAIL_MATCHED_TEXT_MAX_LENGTH));
      this.report(hit);
      if (rule.action === 'block') this.blocked = hit;
      else if (rule.action === 'redact') {
        accepted = cutText(accepted, allowed);
        stream.cut = true;
      }
    });
    return accepted;
  }

  private release(stream: Stream, final: boolean): string {
    const holdBack = final ? 0 : this.rules.holdBack;
    let text = stream.buffer;
    if (this.rules.match.length > 0) {
      const outcome = applyMatchRules(this.rules.match, text, stream.sent, holdBack, this.report);
      if (outcome.blocked !== undefined) {
        this.blocked = outcome.blocked;
        return '';
      }
      text = outcome.text;
    }
    let end = text.length - holdBack;
    // Never send half a surrogate pair. No match starts at a pair's second half, so sending it too is
    // safe; a first half that ends the text waits for its second (only without match rules).
    if (!final && end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end += end < text.length ? 1 : -1;
    if (end <= stream.sent) {
      stream.buffer = text;
      return '';
    }
    const released = text.slice(stream.sent, end);
    const keepFrom = Math.max(0, end - CONTEXT_CHARS);
    stream.buffer = text.slice(keepFrom);
    stream.sent = end - keepFrom;
    if (stream.whole !== undefined) stream.whole += released;
    return released;
  }

  /** Starts judging a text message that ended; its hits are reported before the run's terminal event. */
  judgeMessage(stream: Stream): void {
    if (stream.whole === undefined || this.judge === undefined || stream.whole === '') return;
    const judgement = checkWholeText(this.rules.judge, stream.whole, this.judge, this.report, this.stop.signal);
    // A judgement the run's end aborted reports nothing.
    this.judgements.push(judgement.catch(() => undefined));
  }

  /** Checks the assistant messages of a snapshot as whole texts; undefined when nothing changed. */
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
        const content = await this.checkText(message.content);
        if (content === undefined) return undefined;
        if (content !== message.content) checked = { ...checked, content };
      }
      if (message.toolCalls !== undefined) {
        const toolCalls = [];
        for (const call of message.toolCalls) {
          const args = await this.checkText(call.function.arguments);
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
  private async checkText(text: string): Promise<string | undefined> {
    const rules = [...this.rules.length, ...this.rules.match];
    const verdict = await checkWholeText(rules, text, undefined, this.report, this.stop.signal);
    if (verdict.blocked !== undefined) this.blocked = verdict.blocked;
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
          if (released === delta) yield event;
          else if (released !== '') yield { ...event, delta: released } as BaseEvent;
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
          yield event;
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
          if (released === delta) yield event;
          else if (released !== '') yield { ...event, delta: released } as BaseEvent;
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
    if (guard.blocked !== undefined) yield blockedError(guard.blocked);
  } finally {
    guard.stop.abort();
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
