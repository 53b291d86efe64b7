// The seams between the guardrails' parts: the rules compiled from the engine config (guardrail-set),
// what a run reports of each rule that fired (guardrail-recorder), and the model judge.
import type { BaseEvent } from '@ag-ui/core';
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

/** The rules a whole-text check applies: all, all but the model judges, or only those. */
export type TextRuleSelection = 'all' | 'without_judges' | 'judges';

/** A position other than the streamed output: checked as whole texts. */
export type WholeTextPosition = Exclude<TGuardrailPosition, 'output'>;

/**
 * The compiled rules of an agent's engine config: one per config snapshot, shared by all its runs,
 * so compiling (regexes, phrase sets) happens once per config, never per run.
 */
export type AgentGuardrails = {
  /** Whether any rule checks this position: a run path skips the work for a position no rule checks. */
  checks: (position: TGuardrailPosition) => boolean;
  /**
   * Checks a whole text (a user message, a tool call's argument strings, a tool result). The verdict's
   * text is redacted where a rule said so; `blocked` names the first blocking rule. Every rule that fired
   * is reported, blocking or not. A model judge may make it wait; it rejects only when `signal` aborts.
   */
  checkText: (
    position: WholeTextPosition,
    text: string,
    report: ReportGuardrailHit,
    signal: AbortSignal,
    /**
     * Which rules: all of them (the default), all but the model judges, or only the judges. A tool
     * call's arguments are checked string by string but judged once, as a whole.
     */
    rules?: TextRuleSelection,
  ) => Promise<TextVerdict>;
  /**
   * Filters one run's AG-UI events: text and tool-call argument deltas are held back by at most
   * `holdBackChars` per stream, so that no match split across deltas reaches the client; redactions
   * happen before an event leaves. A blocking match ends the filtered stream with RUN_ERROR code
   * `guardrail_blocked` (naming the guardrail and rule, never the matched text) and stops the source.
   */
  filterOutput: (events: AsyncIterable<BaseEvent>, report: ReportGuardrailHit) => AsyncIterable<BaseEvent>;
  /** The most characters of one stream (a message's text, a tool call's arguments) the output filter holds back. */
  readonly holdBackChars: number;
};
