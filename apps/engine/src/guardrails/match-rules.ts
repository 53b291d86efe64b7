// Applies match rules (pattern, pii, prompt_injection) to a text from a position on: the work shared
// by whole texts and by the streamed output's unsent tail. Each rule sees the text as the rules before
// it left it (redactions compose); overlapping matches of one rule merge into one; the first blocking
// match stops.

import { type MatchRule, ruleHit } from './compiled-rule.js';
import type { GuardrailHit, ReportGuardrailHit } from './guardrail-types.js';

type Span = { start: number; end: number; found: string };

/** The result: the text, redacted where a rule said so, or the hit that blocked it. */
export type MatchOutcome = { text: string; blocked: GuardrailHit | undefined };

/** The rule's matches starting at or after `from`, in order, overlapping ones merged. */
function findSpans(rule: MatchRule, text: string, from: number): Span[] {
  const spans: Span[] = [];
  const visit = (start: number, end: number, found: string) => {
    spans.push({ start, end, found });
  };
  for (const detector of rule.detectors) detector.find(text, from, visit);
  if (rule.detectors.length === 1 || spans.length < 2) return spans;
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Span[] = [spans[0] as Span];
  for (const span of spans.slice(1)) {
    const last = merged[merged.length - 1] as Span;
    if (span.start < last.end) last.end = Math.max(last.end, span.end);
    else merged.push(span);
  }
  return merged;
}

/**
 * Applies `rules` to `text` from `from` on. A match is acted on only when it is decided: its start
 * lies more than `undecidedChars` before the end of the text (more text arriving could still change
 * it otherwise); 0 decides every match (a whole text, a stream's last piece). Undecided matches are
 * left for the next call, which sees them again since they lie in the last `undecidedChars`.
 */
export function applyMatchRules(
  rules: readonly MatchRule[],
  text: string,
  from: number,
  undecidedChars: number,
  report: ReportGuardrailHit,
): MatchOutcome {
  let current = text;
  for (const rule of rules) {
    const spans = findSpans(rule, current, from);
    if (spans.length === 0) continue;
    const decidedBefore = current.length - undecidedChars;
    let redacted = '';
    let copied = 0;
    for (const span of spans) {
      if (span.start >= decidedBefore) break;
      const hit = ruleHit(rule.identity, span.found, current.slice(span.start, span.end));
      report(hit);
      if (rule.action === 'block') return { text: current, blocked: hit };
      if (rule.action === 'redact') {
        redacted += current.slice(copied, span.start) + rule.redaction(span.found);
        copied = span.end;
      }
    }
    if (copied > 0) current = redacted + current.slice(copied);
  }
  return { text: current, blocked: undefined };
}
