// Budgets (PUT /agents/{id}/budget, PUT /workspaces/{id}/budget): a limit in tokens or USD per UTC day
// or month. Once a period's spend reaches it, the agent's engine ends new runs at once with RUN_ERROR
// code BUDGET_EXCEEDED (and WhatsApp senders get `whatsapp_reply`) until the period rolls over or the
// budget is raised.
import { z } from 'zod';
import { ZIsoDateTime } from '../common/primitives.js';

export const BUDGET_UNITS = ['tokens', 'usd'] as const;
export const BUDGET_PERIODS = ['day', 'month'] as const;
export type TBudgetPeriod = (typeof BUDGET_PERIODS)[number];
/** Within what a JSON number carries exactly, and what the spend counter's bigint holds. */
export const BUDGET_LIMIT_MAX = 1e15;
export const BUDGET_WHATSAPP_REPLY_MAX_LENGTH = 4096;
/** The RUN_ERROR code of a run refused because a budget is spent. */
export const BUDGET_EXCEEDED_CODE = 'BUDGET_EXCEEDED';

export const ZBudget = z
  .strictObject({
    limit: z.number().positive().max(BUDGET_LIMIT_MAX).meta({ description: 'Tokens (a whole number) or US dollars' }),
    unit: z
      .enum(BUDGET_UNITS)
      .meta({ description: 'tokens: input plus output tokens; usd: priced by the price table' }),
    period: z.enum(BUDGET_PERIODS).meta({ description: 'A UTC calendar day or month' }),
    whatsapp_reply: z
      .string()
      .trim()
      .min(1)
      .max(BUDGET_WHATSAPP_REPLY_MAX_LENGTH)
      .optional()
      .meta({ description: 'Sent to a WhatsApp sender instead of running the agent while the budget is spent' }),
  })
  .superRefine((budget, ctx) => {
    if (budget.unit === 'tokens' && !Number.isInteger(budget.limit)) {
      ctx.addIssue({ code: 'custom', path: ['limit'], message: 'A budget in tokens must be a whole number' });
    }
  })
  .meta({ id: 'Budget', examples: [{ limit: 2_000_000, unit: 'tokens', period: 'month' }] });
export type TBudget = z.infer<typeof ZBudget>;

export const ZBudgetStatus = z
  .strictObject({
    budget: ZBudget.nullable(),
    spent: z.number().min(0).nullable().meta({ description: "The current period's spend in the budget's unit" }),
    period_start: ZIsoDateTime.nullable(),
    period_end: ZIsoDateTime.nullable().meta({ description: 'Exclusive: when the spend starts again from 0' }),
  })
  .meta({ id: 'BudgetStatus', description: 'A budget and what its current UTC period spent (nulls without a budget)' });
export type TBudgetStatus = z.infer<typeof ZBudgetStatus>;

/** The price the manager resolved for the agent's model, for the engine to count runs in USD. */
export const ZModelPrice = z.strictObject({
  input_per_million_usd: z.number().min(0),
  output_per_million_usd: z.number().min(0),
});
export type TModelPrice = z.infer<typeof ZModelPrice>;

export const ZEngineBudgets = z
  .strictObject({
    agent: ZBudget.nullable(),
    workspace: ZBudget.nullable(),
    price: ZModelPrice.nullable().meta({ description: "The agent's model in the price table; null when absent" }),
  })
  .meta({ id: 'EngineBudgets' });
export type TEngineBudgets = z.infer<typeof ZEngineBudgets>;

/** The UTC day or month holding `at`: [start, end). */
export function budgetPeriodOf(period: TBudgetPeriod, at: Date): { start: Date; end: Date } {
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  if (period === 'month')
    return { start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
  const day = at.getUTCDate();
  return { start: new Date(Date.UTC(year, month, day)), end: new Date(Date.UTC(year, month, day + 1)) };
}
