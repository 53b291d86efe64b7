// Whether a run may start: refused once the current period's spend of the agent's budget, or of its
// workspace's, reached the limit. A run that starts below the limit runs to its end, so the run that
// spends a budget finishes and the next one is refused; runs already going when the limit is reached
// finish too (the overshoot is at most the runs in flight).
import { budgetPeriodOf, type TBudget, type TEngineBudgets } from '@agentplane/contracts';
import type { PeriodSpend } from './budget-spend.js';

export type BudgetRefusal = { scope: 'agent' | 'workspace'; budget: TBudget; message: string };

const PERIOD_WORDS = { day: 'daily', month: 'monthly' } as const;
const OWNERS = { agent: "agent's", workspace: "workspace's" } as const;

function describeLimit(budget: TBudget): string {
  return budget.unit === 'tokens' ? `${budget.limit} tokens` : `${budget.limit} USD`;
}

export function hasBudgets(budgets: TEngineBudgets): boolean {
  return budgets.agent !== null || budgets.workspace !== null;
}

/** The first spent budget, the agent's before the workspace's; undefined when the run may start. */
export function findRefusal(budgets: TEngineBudgets, spend: PeriodSpend, now: Date): BudgetRefusal | undefined {
  for (const scope of ['agent', 'workspace'] as const) {
    const budget = budgets[scope];
    if (budget === null) continue;
    const spent = spend[scope][budget.period];
    if ((budget.unit === 'tokens' ? spent.tokens : spent.costUsd) < budget.limit) continue;
    const resumes = budgetPeriodOf(budget.period, now).end.toISOString();
    const message = `The ${OWNERS[scope]} ${PERIOD_WORDS[budget.period]} budget of ${describeLimit(budget)} is spent; runs resume at ${resumes} or when the budget is raised.`;
    return { scope, budget, message };
  }
  return undefined;
}
