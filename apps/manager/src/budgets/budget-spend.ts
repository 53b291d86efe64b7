// What a budget's current UTC period spent, from the counters engines add each run to (budget_spend).
import { budgetPeriodOf, type TBudget, type TBudgetStatus } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';

export type BudgetScope = { scope: 'agent' | 'workspace'; id: string };

export async function readBudgetStatus(
  db: Db,
  scope: BudgetScope,
  budget: TBudget | null,
  now: Date,
): Promise<TBudgetStatus> {
  if (budget === null) return { budget: null, spent: null, period_start: null, period_end: null };
  const { start, end } = budgetPeriodOf(budget.period, now);
  const sums = await db.budgetSpend.aggregate({
    where: { scope: scope.scope, scopeId: scope.id, day: { gte: start, lt: end } },
    _sum: { tokens: true, costUsd: true },
  });
  const spent = budget.unit === 'tokens' ? Number(sums._sum.tokens ?? 0) : Number(sums._sum.costUsd ?? 0);
  return { budget, spent, period_start: start.toISOString(), period_end: end.toISOString() };
}
