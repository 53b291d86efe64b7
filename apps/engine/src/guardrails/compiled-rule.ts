// One guardrail rule as the engine applies it: its detectors built once, from the rule as the
// contract describes it (guardrail-config.ts), for every run of the agent's config.
import type { TEngineGuardrail, TGuardrailAction, TGuardrailRule } from '@agentplane/contracts';
import type { GuardrailHit } from './guardrail-types.js';
import { injectionDetector } from './injection-detector.js';
import { phraseDetector, regexDetector } from './pattern-detector.js';
import { piiDetector } from './pii-detectors.js';
import type { TextDetector } from './text-detector.js';

/** Which guardrail and rule a hit names. */
export type RuleIdentity = Pick<GuardrailHit, 'guardrail' | 'rule'>;

/** A pattern, pii or prompt_injection rule: detectors whose matches are blocked, redacted or logged. */
export type MatchRule = {
  type: 'match';
  identity: RuleIdentity;
  action: TGuardrailAction;
  detectors: readonly TextDetector[];
  /** The most characters from a match's start that decide it (the largest of its detectors'). */
  windowChars: number;
  /** What a redacted match becomes. */
  redaction: (found: string) => string;
};

export type LengthRule = { type: 'length'; identity: RuleIdentity; action: TGuardrailAction; maxChars: number };

export type JudgeRule = {
  type: 'judge';
  identity: RuleIdentity;
  action: TGuardrailAction;
  rubric: string;
  model: string | undefined;
};

export type CompiledRule = MatchRule | LengthRule | JudgeRule;

function ruleDetectors(rule: TGuardrailRule): TextDetector[] {
  switch (rule.kind) {
    case 'pattern': {
      const detectors: TextDetector[] = [];
      if (rule.phrases.length > 0) detectors.push(phraseDetector(rule.phrases, rule.case_sensitive));
      if (rule.regexes.length > 0) detectors.push(regexDetector(rule.regexes, rule.case_sensitive));
      return detectors;
    }
    case 'pii':
      return rule.entities.map(piiDetector);
    case 'prompt_injection':
      return [injectionDetector()];
    default:
      return [];
  }
}

export function compileRule(guardrail: TEngineGuardrail, rule: TGuardrailRule): CompiledRule {
  const identity: RuleIdentity = {
    guardrail: { id: guardrail.id, name: guardrail.name },
    rule: { name: rule.name, kind: rule.kind, position: rule.position, action: rule.action },
  };
  if (rule.kind === 'max_length') return { type: 'length', identity, action: rule.action, maxChars: rule.max_chars };
  if (rule.kind === 'model_judge') {
    return { type: 'judge', identity, action: rule.action, rubric: rule.rubric, model: rule.model };
  }
  const detectors = ruleDetectors(rule);
  // A pattern rule's redaction names the rule (its phrases may be what the reader must not learn); the
  // others name what they found.
  const redaction =
    rule.kind === 'pattern' ? () => `[REDACTED:${rule.name}]` : (found: string) => `[REDACTED:${found}]`;
  return {
    type: 'match',
    identity,
    action: rule.action,
    detectors,
    windowChars: Math.max(...detectors.map((detector) => detector.windowChars)),
    redaction,
  };
}

/** The hit of `rule` for what it found. */
export function ruleHit(identity: RuleIdentity, found: string, matched: string): GuardrailHit {
  return { guardrail: identity.guardrail, rule: identity.rule, found, matched };
}
