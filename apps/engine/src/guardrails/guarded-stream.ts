// One streamed text (a message's text, a tool call's arguments) under the output rules. It keeps the
// unsent tail; after each delta the match rules look at what they have not decided yet, and all but
// the last `holdBack` characters go out. A match is decided once the detector's window (its longest
// match plus one character of look-ahead) has arrived from its start, so nothing that leaves can be
// part of a match the filter has not seen whole.
//
// Each detector of each rule (a unit) remembers where its next search starts, so a delta costs each
// unit about its own window plus the delta, not a rescan of the whole hold-back. A unit decides no
// further than any unit before it (its decide window is the widest so far): a rule sees the text as
// the rules before it left it, never as a later rule redacted it.
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

/** One detector of one match rule, as a stream applies it. */
export type StreamUnit = {
  identity: RuleIdentity;
  action: MatchRule['action'];
  detector: TextDetector;
  redaction: (found: string) => string;
  /** A match starting fewer characters than this before the end is not decided yet. */
  decideChars: number;
};

/** The units of `rules`, in order, each deciding no further than the units before it (compiled once per config). */
export function streamUnits(rules: readonly MatchRule[]): StreamUnit[] {
  let widest = 0;
  return rules.flatMap((rule) =>
    rule.detectors.map((detector) => {
      widest = Math.max(widest, detector.windowChars);
      const { identity, action, redaction } = rule;
      return { identity, action, detector, redaction, decideChars: widest };
    }),
  );
}

export type Stream = {
  /** Up to CONTEXT_CHARS sent characters, then the unsent ones. */
  buffer: string;
  /** Where the unsent characters start in `buffer`. */
  sent: number;
  /** The stream offset of `buffer`'s first character. */
  base: number;
  /** Per unit, the stream offset its next search starts at. */
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
    private readonly units: readonly StreamUnit[],
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
      scanFrom: this.units.map(() => 0),
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

  /** Runs each unit over what it has not decided; the redacted text, or undefined when blocked. */
  private scan(stream: Stream, final: boolean): string | undefined {
    let text = stream.buffer;
    const sentAt = stream.base + stream.sent;
    for (const [index, unit] of this.units.entries()) {
      const from = Math.max(sentAt, stream.scanFrom[index] as number) - stream.base;
      if (from >= text.length) continue;
      const current = text;
      const undecidedFrom = final ? Number.POSITIVE_INFINITY : current.length - unit.decideChars + 1;
      let undecided = -1;
      let lastEnd = from;
      let redacted = '';
      let spans: number[] | undefined;
      unit.detector.find(current, from, (start, end, found) => {
        if (start >= undecidedFrom) {
          undecided = start;
          return true;
        }
        const hit = ruleHit(unit.identity, found, current.slice(start, end));
        this.report(hit);
        if (unit.action === 'block') {
          this.blocked = hit;
          return true;
        }
        if (unit.action === 'redact') {
          const replacement = unit.redaction(found);
          redacted += current.slice(lastEnd, start) + replacement;
          spans ??= [];
          spans.push(start, end, replacement.length);
        }
        lastEnd = end;
        return undefined;
      });
      if (this.blocked !== undefined) return undefined;
      const next = undecided >= 0 ? undecided : Math.max(lastEnd, Math.min(undecidedFrom, current.length));
      if (spans === undefined) {
        stream.scanFrom[index] = stream.base + next;
        continue;
      }
      text = current.slice(0, from) + redacted + current.slice(lastEnd);
      const moved = spans;
      stream.scanFrom = stream.scanFrom.map((offset) => stream.base + mapPosition(offset - stream.base, moved));
      stream.scanFrom[index] = stream.base + mapPosition(next, moved);
    }
    return text;
  }

  private release(stream: Stream, final: boolean): string {
    const text = this.units.length > 0 ? this.scan(stream, final) : stream.buffer;
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
