// Compiles an agent's guardrails (engine_config.guardrails) into the checks its runs apply: once per
// config snapshot, so no run compiles a pattern.
import { GUARDRAIL_POSITIONS, type TEngineGuardrail, type TGuardrailPosition } from '@agentplane/contracts';
import { checkWholeText } from './check-text.js';
import { type CompiledRule, compileRule } from './compiled-rule.js';
import type { AgentGuardrails, ModelJudge } from './guardrail-types.js';
import { filterOutputEvents, selectOutputRules } from './output-filter.js';

/** The agent's compiled guardrails, or undefined when they have no rule at all. */
export function compileGuardrails(
  guardrails: readonly TEngineGuardrail[],
  options: { judge?: ModelJudge | undefined },
): AgentGuardrails | undefined {
  const { judge } = options;
  const byPosition = new Map<TGuardrailPosition, CompiledRule[]>(GUARDRAIL_POSITIONS.map((position) => [position, []]));
  let ruleCount = 0;
  for (const guardrail of guardrails) {
    for (const rule of guardrail.rules) {
      byPosition.get(rule.position)?.push(compileRule(guardrail, rule));
      ruleCount++;
    }
  }
  if (ruleCount === 0) return undefined;
  // A model_judge rule without a judge is skipped: it checks nothing.
  const applicable = (rules: CompiledRule[]) => rules.filter((rule) => rule.type !== 'judge' || judge !== undefined);
  const outputRules = selectOutputRules(byPosition.get('output') ?? [], judge);
  const checked = new Set(
    GUARDRAIL_POSITIONS.filter((position) => applicable(byPosition.get(position) ?? []).length > 0),
  );
  return {
    checks: (position) => checked.has(position),
    checkText: (position, text, report, signal) =>
      checkWholeText(byPosition.get(position) ?? [], text, judge, report, signal),
    filterOutput:
      outputRules === undefined
        ? (events) => events
        : (events, report) => filterOutputEvents(events, outputRules, judge, report),
    holdBackChars: outputRules?.holdBack ?? 0,
  };
}
