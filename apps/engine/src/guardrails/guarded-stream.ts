// One streamed text (a message's text, a tool call's arguments) under the output rules. It keeps the
// unsent tail; after each delta the match rules look at what they have not decided yet, and all but
// the last `holdBack` characters go out. A match is decided once the detector's window (its longest
// match plus one character of look-ahead) has arrived from its start, so nothing that leaves can be
// part of a match the filter has not seen whole.
//
// The hold-back delays a stream's text, never the run's first event: RUN_STARTED and every event
// that is not a delta pass at once, and a message's first characters leave once more than holdBack
// of them have arrived, or at its end (a short reply leaves whole at its end).
//
// Each detector of each rule remembers where its next search starts, so a delta costs it about its
// window plus the delta, not a rescan of the whole hold-back. A rule decides no further than any rule
// before it (its decide window is the widest so far): a rule sees the text as the rules before it
// left it, never as a later rule redacted it.
import { GUARDRAIL_MATCHED_TEXT_MAX_LENGTH } from '@agentplane/contracts';
import { cutText } from './check-text.js';
import { type LengthRule, type MatchRule, type RuleIdentity, ruleHit } from './compiled-rule.js';
import type { GuardrailHit, ReportGuardrailHit } from './guardrail-types.js';
import type { TextDetector } from './text-detector.js';

/**
 * Already sent characters kept before the unsent tail: what the detectors' look-behinds read (a word
 * boundary, a digit before a number; none reads more than two characters).
 */
const CONTEXT_CHARS = 8;

/** A match rule as a stream applies it (compiled once per config). */
export type StreamRule = {
  identity: RuleIdentity;
  action: MatchRule['action'];
  detectors: readonly TextDetector[];
  redaction: (found: string) => string;
  /** Where its detectors' search positions start in a stream's `scanFrom`. */
  firstDetector: number;
  /** A match starting fewer characters than this before the end is not decided yet. */
  decideChars: number;
};

/** The stream rules of `rules`, in order, each deciding no further than the rules before it. */
export function streamRules(rules: readonly MatchRule[]): StreamRule[] {
  let widest = 0;
  let detectors = 0;
  return rules.map((rule) => {
    widest = Math.max(widest, rule.windowChars);
    const firstDetector = detectors;
    detectors += rule.detectors.length;
    const { identity, action, redaction } = rule;
    return { identity, action, detectors: rule.detectors, redaction, firstDetector, decideChars: widest };
  });
}

export type Stream = {
  /** Up to CONTEXT_CHARS sent characters, then the unsent ones. */
  buffer: string;
  /** Where the unsent characters start in `buffer`. */
  sent: number;
  /** The stream offset of `buffer`'s first character. */
  base: number;
  /** Per detector of each rule, the stream offset its next search starts at. */
  scanFrom: number[];
  /** Characters the stream has had from the agent (max_length). */
  received: number;
  /** A max_length rule redacted the stream: the rest of it is dropped. */
  cut: boolean;
  /** The max_length rules that fired already, by index: each reports once per stream. */
  lengthFired: boolean[] | undefined;
  /** What was sent, when an output judge reads the whole message at its end. */
  whole: string | undefined;
};

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

type Span = { start: number; end: number; found: string; slot: number };

/** Spans by start, overlapping ones merged into the first (whose `found` they keep). */
function mergeSpans(spans: Span[]): Span[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last !== undefined && span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push(span);
  }
  return merged;
}

/** Where a position of the text before redacting `spans` ([start, end, replacement length]...) is after. */
function mapPosition(position: number, spans: readonly number[]): number {
  let shift = 0;
  for (let index = 0; index < spans.length; index += 3) {
    const start = spans[index] as number;
    const end = spans[index + 1] as number;
    const length = spans[index + 2] as number;
    if (position >= end) shift += length - (end - start);
    else if (position > start) return start + shift + length;
    else break;
  }
  return position + shift;
}

/** The output rules applied to one run's streams; `blocked` is the hit that stopped the run, once one did. */
export class StreamGuard {
  blocked: GuardrailHit | undefined;

  constructor(
    private readonly rules: readonly StreamRule[],
    private readonly lengthRules: readonly LengthRule[],
    /** The longest match of any rule: the characters of a stream held back. */
    private readonly holdBack: number,
    private readonly report: ReportGuardrailHit,
  ) {}

  /** A new stream; `judged` keeps what was sent of it for a judge. */
  create(judged: boolean): Stream {
    return {
      buffer: '',
      sent: 0,
      base: 0,
      scanFrom: this.rules.flatMap((rule) => rule.detectors.map(() => 0)),
      received: 0,
      cut: false,
      lengthFired: undefined,
      whole: judged ? '' : undefined,
    };
  }

  /** The part of what was held back and `delta` that may leave now; '' when none or blocked. */
  push(stream: Stream, delta: string): string {
    if (stream.cut) return '';
    const accepted = this.lengthRules.length > 0 ? this.limitLength(stream, delta) : delta;
    if (this.blocked !== undefined) return '';
    stream.buffer += accepted;
    // Nothing can leave before the unsent text is longer than the hold-back: skip the scan.
    if (stream.buffer.length - stream.sent <= this.holdBack) return '';
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
    this.lengthRules.forEach((rule, index) => {
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

  /** Runs each rule over what it has not decided; the redacted text, or undefined when blocked. */
  private scan(stream: Stream, final: boolean): string | undefined {
    let text = stream.buffer;
    for (const rule of this.rules) {
      const spans = this.findDecided(stream, rule, text, final);
      if (spans === undefined) continue;
      let redacted = '';
      let copied = 0;
      let moved: number[] | undefined;
      for (const span of spans) {
        const hit = ruleHit(rule.identity, span.found, text.slice(span.start, span.end));
        this.report(hit);
        if (rule.action === 'block') {
          this.blocked = hit;
          return undefined;
        }
        if (rule.action !== 'redact') continue;
        const replacement = rule.redaction(span.found);
        redacted += text.slice(copied, span.start) + replacement;
        copied = span.end;
        moved ??= [];
        moved.push(span.start, span.end, replacement.length);
      }
      if (moved === undefined) continue;
      text = redacted + text.slice(copied);
      const spansMoved = moved;
      stream.scanFrom = stream.scanFrom.map((offset) => stream.base + mapPosition(offset - stream.base, spansMoved));
    }
    return text;
  }

  /**
   * The decided matches of `rule` in `text`, overlapping ones merged (as a whole text merges them), and
   * where each detector's next search starts; undefined when there is none. A decided match that
   * overlaps another detector's undecided one takes it in: redacting a little early beats sending a
   * half of it.
   */
  private findDecided(stream: Stream, rule: StreamRule, text: string, final: boolean): Span[] | undefined {
    const sentAt = stream.base + stream.sent;
    const undecidedFrom = final ? Number.POSITIVE_INFINITY : text.length - rule.decideChars + 1;
    const spans: Span[] = [];
    const pending: Span[] = [];
    rule.detectors.forEach((detector, index) => {
      const slot = rule.firstDetector + index;
      const from = Math.max(sentAt, stream.scanFrom[slot] as number) - stream.base;
      if (from >= text.length) return;
      let next = Math.max(from, Math.min(undecidedFrom, text.length));
      detector.find(text, from, (start, end, found) => {
        if (start >= undecidedFrom) {
          next = start;
          pending.push({ start, end, found, slot });
          return true;
        }
        spans.push({ start, end, found, slot });
        next = Math.max(end, Math.min(undecidedFrom, text.length));
        return undefined;
      });
      stream.scanFrom[slot] = stream.base + next;
    });
    if (spans.length === 0) return undefined;
    if (rule.detectors.length === 1) return spans;
    const merged = mergeSpans(spans);
    for (const candidate of pending) {
      const overlapped = merged.find((span) => candidate.start < span.end && span.start < candidate.end);
      if (overlapped === undefined) continue;
      overlapped.end = Math.max(overlapped.end, candidate.end);
      stream.scanFrom[candidate.slot] = stream.base + candidate.end;
    }
    return merged;
  }

  private release(stream: Stream, final: boolean): string {
    const text = this.rules.length > 0 ? this.scan(stream, final) : stream.buffer;
    if (text === undefined) return '';
    let end = final ? text.length : text.length - this.holdBack;
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
    stream.base += keepFrom;
    stream.sent = end - keepFrom;
    if (stream.whole !== undefined) stream.whole += released;
    return released;
  }
}
