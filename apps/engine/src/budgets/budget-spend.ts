// The budget counters (budget_spend): what the agent and its workspace spent per UTC day. SQL rather
// than Prisma: the engine talks to PostgreSQL through pg as its agent's role, and the add is one
// statement that must stay atomic across replicas. Days are the database's clock (UTC), so every
// replica counts into the same row whatever its own clock says.
import type { TEngineBudgets } from '@agentplane/contracts';
import type { Queryable } from '../threads/thread-store.js';

export type SpendScopes = { agentId: string; workspaceId: string };

/** The rows a workspace's day is spread over (budget_spend_stripe_check allows 0 to 15). */
export const WORKSPACE_STRIPES = 16;

/** Tokens and USD spent in the current day and month, per scope. */
export type PeriodSpend = Record<'agent' | 'workspace', Record<'day' | 'month', { tokens: number; costUsd: number }>>;

// Both rows in one statement, agent before workspace in every replica, so two runs ending together
// lock them in the same order. ON CONFLICT DO UPDATE adds to the row under its lock: concurrent ends
// wait for each other and none is lost. The workspace's row is the stripe of it this agent's id hashes
// to: the agents of a workspace do not all wait for one row, locked until each commit is flushed.
// The cost is computed in numeric, exactly, from the price the manager published (no price: the run
// adds tokens only).
const ADD_SPEND = `
  INSERT INTO budget_spend (scope, scope_id, stripe, day, tokens, cost_usd, updated_at)
  SELECT v.scope, v.scope_id, v.stripe, (now() AT TIME ZONE 'UTC')::date, $3::bigint,
         coalesce(($4::numeric * $6::numeric + $5::numeric * $7::numeric) / 1000000, 0), now()
  FROM (VALUES ('agent', $1::uuid, 0), ('workspace', $2::uuid, hashtext($1::text) & ${WORKSPACE_STRIPES - 1}))
    AS v(scope, scope_id, stripe)
  ORDER BY v.scope
  ON CONFLICT (scope, scope_id, day, stripe) DO UPDATE
    SET tokens = budget_spend.tokens + EXCLUDED.tokens,
        cost_usd = budget_spend.cost_usd + EXCLUDED.cost_usd,
        updated_at = now()`;

/** Adds a run's tokens (and their cost at the published price) to its agent's and workspace's day. */
export async function addRunSpend(
  db: Queryable,
  scopes: SpendScopes,
  usage: { input_tokens: number; output_tokens: number },
  price: TEngineBudgets['price'],
): Promise<void> {
  await db.query(ADD_SPEND, [
    scopes.agentId,
    scopes.workspaceId,
    usage.input_tokens + usage.output_tokens,
    usage.input_tokens,
    usage.output_tokens,
    price === null ? null : String(price.input_per_million_usd),
    price === null ? null : String(price.output_per_million_usd),
  ]);
}

// The month's rows of both scopes (every stripe of the workspace's) through the primary key, today's
// summed apart.
const READ_SPEND = `
  WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day)
  SELECT s.scope,
         coalesce(sum(s.tokens) FILTER (WHERE s.day = today.day), 0)::text AS day_tokens,
         coalesce(sum(s.cost_usd) FILTER (WHERE s.day = today.day), 0)::text AS day_cost_usd,
         coalesce(sum(s.tokens), 0)::text AS month_tokens,
         coalesce(sum(s.cost_usd), 0)::text AS month_cost_usd
  FROM budget_spend s, today
  WHERE ((s.scope = 'agent' AND s.scope_id = $1::uuid) OR (s.scope = 'workspace' AND s.scope_id = $2::uuid))
    AND s.day >= date_trunc('month', today.day)::date AND s.day <= today.day
  GROUP BY s.scope`;

type SpendRow = {
  scope: 'agent' | 'workspace';
  day_tokens: string;
  day_cost_usd: string;
  month_tokens: string;
  month_cost_usd: string;
};

export async function readPeriodSpend(db: Queryable, scopes: SpendScopes): Promise<PeriodSpend> {
  const { rows } = await db.query<SpendRow>(READ_SPEND, [scopes.agentId, scopes.workspaceId]);
  const nothing = () => ({ day: { tokens: 0, costUsd: 0 }, month: { tokens: 0, costUsd: 0 } });
  const spend: PeriodSpend = { agent: nothing(), workspace: nothing() };
  for (const row of rows) {
    spend[row.scope] = {
      day: { tokens: Number(row.day_tokens), costUsd: Number(row.day_cost_usd) },
      month: { tokens: Number(row.month_tokens), costUsd: Number(row.month_cost_usd) },
    };
  }
  return spend;
}
