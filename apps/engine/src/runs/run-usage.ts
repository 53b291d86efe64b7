// A run's token usage: the sum of what the provider counted for each of its model calls, in the shape
// the run's record and the APIs show (snake_case, as every envelope field).
import type { TokenUsage } from '../agents/agent-runtime.js';

export type RunUsage = { input_tokens: number; output_tokens: number; total_tokens: number; model_calls: number };

export type UsageMeter = {
  add: (usage: TokenUsage) => void;
  /** Undefined when no model call was counted (a model that reports nothing, or none called). */
  total: () => RunUsage | undefined;
};

export function createUsageMeter(): UsageMeter {
  let total: RunUsage | undefined;
  return {
    add: ({ inputTokens, outputTokens }) => {
      const sum = total ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0, model_calls: 0 };
      total = {
        input_tokens: sum.input_tokens + inputTokens,
        output_tokens: sum.output_tokens + outputTokens,
        total_tokens: sum.total_tokens + inputTokens + outputTokens,
        model_calls: sum.model_calls + 1,
      };
    },
    total: () => total,
  };
}
