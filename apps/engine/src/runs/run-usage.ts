// A run's token usage: the sum of what the provider counted for each of its model calls, in the shape
// the run's record and the APIs show (snake_case, as every envelope field). `model` ("<provider>/<name>")
// lets the manager price the run; it is left out when a call did not name its model or the calls named
// different ones, since one price cannot cover them (the run's tokens still count, its cost is unknown).
import type { TokenUsage } from '../agents/agent-runtime.js';

export type RunUsage = {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  model_calls: number;
  model?: string;
};

export type UsageMeter = {
  add: (usage: TokenUsage) => void;
  /** Undefined when no model call was counted (a model that reports nothing, or none called). */
  total: () => RunUsage | undefined;
};

export function createUsageMeter(): UsageMeter {
  let total: Omit<RunUsage, 'model'> | undefined;
  // undefined: no call yet; null: the calls do not name one model.
  let model: string | null | undefined;
  return {
    add: ({ inputTokens, outputTokens, model: callModel }) => {
      const sum = total ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0, model_calls: 0 };
      total = {
        input_tokens: sum.input_tokens + inputTokens,
        output_tokens: sum.output_tokens + outputTokens,
        total_tokens: sum.total_tokens + inputTokens + outputTokens,
        model_calls: sum.model_calls + 1,
      };
      model = model === undefined || model === callModel ? (callModel ?? null) : null;
    },
    total: () => (total === undefined || typeof model !== 'string' ? total : { ...total, model }),
  };
}
