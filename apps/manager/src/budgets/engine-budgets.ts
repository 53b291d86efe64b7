// What an engine needs to enforce budgets, resolved by the manager at publish time: the agent's and
// its workspace's budgets, and the price of the agent's model (the engine holds no price table).
import { type TBudget, type TEngineBudgets, ZBudget } from '@agentplane/contracts';
import type { ModelPrices } from '../usage/model-prices.js';

/** A stored budget column: null, or what ZBudget accepted when it was written. */
export function storedBudget(value: unknown): TBudget | null {
  return value === null || value === undefined ? null : ZBudget.parse(value);
}

/** The price of an LLM agent's model, keyed as the engine records a run's model ("<provider>/<name>"). */
function modelPriceOf(framework: string, config: unknown, prices: ModelPrices): TEngineBudgets['price'] {
  if (framework !== 'LLM') return null;
  const { model } = config as { model: { provider: string; name: string } };
  return prices[`${model.provider}/${model.name}`] ?? null;
}

export function engineBudgetsOf(
  agent: { framework: string; config: unknown; budget: unknown },
  workspaceBudget: unknown,
  prices: ModelPrices,
): TEngineBudgets {
  return {
    agent: storedBudget(agent.budget),
    workspace: storedBudget(workspaceBudget),
    price: modelPriceOf(agent.framework, agent.config, prices),
  };
}
