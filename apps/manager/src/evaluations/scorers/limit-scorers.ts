// The scorers of a run's cost: latency and tokens. At or below the target the score is 1, above the
// maximum 0, and in between it falls linearly; with no target it is 1 up to the maximum.
import type { TScorerOf } from '@agentplane/contracts';
import type { CompiledScorer, Grade } from './grade.js';

function gradeAgainstLimit(
  value: number,
  { max, target }: { max: number; target?: number | undefined },
  unit: string,
): Grade {
  if (value > max) return { score: 0, reason: `${value} ${unit}, over the maximum of ${max}` };
  if (target === undefined || value <= target) {
    return { score: 1, reason: `${value} ${unit}, within ${target ?? max}` };
  }
  const score = (max - value) / (max - target);
  return { score, reason: `${value} ${unit}, between the target of ${target} and the maximum of ${max}` };
}

export function compileLatency(scorer: TScorerOf<'latency'>): CompiledScorer {
  return ({ observation }) =>
    observation.latency_ms === undefined
      ? { score: null, reason: 'The run has no recorded latency' }
      : gradeAgainstLimit(observation.latency_ms, scorer, 'ms');
}

export function compileTokens(scorer: TScorerOf<'tokens'>): CompiledScorer {
  return ({ observation }) =>
    observation.tokens === undefined
      ? { score: null, reason: 'The run has no recorded token counts' }
      : gradeAgainstLimit(observation.tokens.total, scorer, 'tokens');
}
