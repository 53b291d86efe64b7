// Applies a match rule (pattern, pii, prompt_injection) to a whole text: overlapping matches of its
// detectors merge into one, a redaction replaces each, a block stops at the first.

import { type MatchRule, ruleHit } from './compiled-rule.js';
import type { GuardrailHit, ReportGuardrailHit } from './guardrail-types.js';

type Span = { start: number; end: number; found: string };

/** The result: the text, redacted where a rule said so, or the hit that blocked it. */
export type MatchOutcome = { text: string; blocked: GuardrailHit | undefined };

/** The rule's matches in order, overlapping ones (of its several detectors) merged. */
function findSpans(rule: MatchRule, text: string): Span[] {
  const spans: Span[] = [];
  const visit = (start: number, end: number, found: string) => {
    spans.push({ start, end, found });
    return undefined;
  };
  for (const detector of rule.detectors) detector.find(text, 0, visit);
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

/** Applies one match rule to a whole text: every match is reported; a block stops at the first. */
export function applyMatchRule(rule: MatchRule, text: string, report: ReportGuardrailHit): MatchOutcome {
  const spans = findSpans(rule, text);
  let redacted = '';
  let copied = 0;
  for (const span of spans) {
    const hit = ruleHit(rule.identity, span.found, text.slice(span.start, span.end));
    report(hit);
    if (rule.action === 'block') return { text, blocked: hit };
    if (rule.action === 'redact') {
      redacted += text.slice(copied, span.start) + rule.redaction(span.found);
      copied = span.end;
    }
  }
  return { text: copied > 0 ? redacted + text.slice(copied) : text, blocked: undefined };
}
