// Checks one whole text (a user message, a tool call's argument string, a tool result, a message of a
// snapshot) against the rules of its position, in their order: redactions compose, the first blocking
// rule stops, every rule that fired is reported.
import { GUARDRAIL_MATCHED_TEXT_MAX_LENGTH } from '@agentplane/contracts';
import { type CompiledRule, type JudgeRule, type LengthRule, ruleHit } from './compiled-rule.js';
import type { GuardrailHit, ModelJudge, ReportGuardrailHit, TextVerdict } from './guardrail-types.js';
import { applyMatchRules } from './match-rules.js';

/** `text` cut to at most `maxChars` UTF-16 code units, never between the two halves of a surrogate pair. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const code = text.charCodeAt(maxChars - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars);
}

function checkLength(rule: LengthRule, text: string, report: ReportGuardrailHit): TextVerdict {
  if (text.length <= rule.maxChars) return { text, blocked: undefined };
  const over = text.slice(rule.maxChars, rule.maxChars + GUARDRAIL_MATCHED_TEXT_MAX_LENGTH);
  const hit = ruleHit(rule.identity, 'length', over);
  report(hit);
  if (rule.action === 'block') return { text, blocked: hit };
  return { text: rule.action === 'redact' ? cutText(text, rule.maxChars) : text, blocked: undefined };
}

/**
 * A judge that cannot answer (it rejects without our signal aborting) fails closed for a `block` rule:
 * the text is blocked, found `judge_unavailable`, since passing it would let through exactly what the
 * operator asked to stop whenever the judge's model is down. A `log` rule only reports that.
 */
async function checkJudge(
  rule: JudgeRule,
  text: string,
  judge: ModelJudge,
  report: ReportGuardrailHit,
  signal: AbortSignal,
): Promise<TextVerdict> {
  let found: string | undefined;
  try {
    if (await judge({ rubric: rule.rubric, model: rule.model, text }, signal)) found = 'judge';
  } catch (error) {
    if (signal.aborted) throw error;
    found = 'judge_unavailable';
  }
  if (found === undefined) return { text, blocked: undefined };
  const hit: GuardrailHit = ruleHit(rule.identity, found, text.slice(0, GUARDRAIL_MATCHED_TEXT_MAX_LENGTH));
  report(hit);
  return { text, blocked: rule.action === 'block' ? hit : undefined };
}

/** Checks `text` against `rules` (all of one position); a rule of a kind it cannot apply is skipped. */
export async function checkWholeText(
  rules: readonly CompiledRule[],
  text: string,
  judge: ModelJudge | undefined,
  report: ReportGuardrailHit,
  signal: AbortSignal,
): Promise<TextVerdict> {
  let current = text;
  for (const rule of rules) {
    let verdict: TextVerdict;
    if (rule.type === 'match') verdict = applyMatchRules([rule], current, 0, 0, report);
    else if (rule.type === 'length') verdict = checkLength(rule, current, report);
    else if (judge === undefined) continue;
    else verdict = await checkJudge(rule, current, judge, report, signal);
    if (verdict.blocked !== undefined) return verdict;
    current = verdict.text;
  }
  return { text: current, blocked: undefined };
}
