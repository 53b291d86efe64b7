// The seams between the guardrails' parts: the rules compiled from the engine config (guardrail-set),
// what a run reports of each rule that fired (guardrail-recorder), and the model judge.
import type { TEngineGuardrail, TGuardrailPosition, TGuardrailRule } from '@agentplane/contracts';

/** A rule that fired: which guardrail and rule, what it found and the text it matched. */
export type GuardrailHit = {
  guardrail: Pick<TEngineGuardrail, 'id' | 'name'>;
  rule: Pick<TGuardrailRule, 'name' | 'kind' | 'position' | 'action'>;
  /** A PII entity, `phrase`, `regex`, `injection`, `length` or `judge`. */
  found: string;
  /** The matched text: recorded only where the agent's observability config captures content. */
  matched: string;
};

/** Called once per rule that fired, in the order they fired (span event, metric, run record line). */
export type ReportGuardrailHit = (hit: GuardrailHit) => void;

/** A checked whole text: the text to go on with (redacted where a rule said so), or the rule that blocked it. */
export type TextVerdict = { text: string; blocked: GuardrailHit | undefined };

/** Whether `text` breaks `rubric`, as a model judges it; rejects when the judge cannot answer. */
export type ModelJudge = (
  request: { rubric: string; model: string | undefined; text: string },
  signal: AbortSignal,
) => Promise<boolean>;
export type { TGuardrailPosition };
