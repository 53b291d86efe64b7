// Usage figures summed in PostgreSQL over the runs' records: runs, failures, duration percentiles,
// tokens and cost, per bucket (UTC), per agent and in total, in one pass (GROUPING SETS). Cost is
// computed here, at read time, from the price table the manager holds now: a price change applies to
// every report, past runs included. A budget check sums the same figures over its period.
import type { TUsageFigures } from '@agentplane/contracts';
import { type Db, Prisma } from '@agentplane/db';
import type { ModelPrices } from './model-prices.js';
import type { UsageRange } from './usage-range.js';

/** A workspace's runs, or one of its agents' runs. */
export type UsageScope = { workspaceId: string; agentId?: string };

export type UsageFigures = {
  totals: TUsageFigures;
  buckets: (TUsageFigures & { start: Date })[];
  agents: (TUsageFigures & { agentId: string; name: string })[];
  /** Per agent and version the runs ran with: only an agent's report shows them. */
  versions: (TUsageFigures & { agentId: string; agentVersion: number | null })[];
};

type FiguresRow = {
  by_bucket: boolean;
  by_agent: boolean;
  by_version: boolean;
  bucket_start: Date | null;
  agent_id: string | null;
  name: string | null;
  agent_version: bigint | null;
  runs: number;
  errors: number;
  duration_p50_ms: number | null;
  duration_p95_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  unpriced_runs: number;
};

const NO_RUNS: TUsageFigures = {
  runs: 0,
  errors: 0,
  duration_p50_ms: null,
  duration_p95_ms: null,
  input_tokens: 0,
  output_tokens: 0,
  cost_usd: null,
  unpriced_runs: 0,
};

// The engine writes numbers; anything else in a usage field counts as not reported, not as a failed report.
const tokens = (field: 'input_tokens' | 'output_tokens') =>
  Prisma.sql`CASE WHEN jsonb_typeof(r.usage -> ${field}) = 'number' THEN (r.usage ->> ${field})::numeric END`;

function toFigures(row: FiguresRow): TUsageFigures {
  const { by_bucket, by_agent, by_version, bucket_start, agent_id, name, agent_version, ...figures } = row;
  return figures;
}

export async function readUsageFigures(
  db: Db,
  prices: ModelPrices,
  scope: UsageScope,
  range: UsageRange,
): Promise<UsageFigures> {
  const agentFilter = scope.agentId === undefined ? Prisma.empty : Prisma.sql`AND r.agent_id = ${scope.agentId}::uuid`;
  // Served by agent_runs_agent_id_created_at_idx: the workspace's agents, each a range scan on created_at.
  const rows = await db.$queryRaw<FiguresRow[]>`
    WITH scoped AS (
      SELECT r.agent_id, a.name, r.status, r.agent_version,
        date_trunc(${range.bucket}, r.created_at, 'UTC') AS bucket_start,
        (extract(epoch FROM r.finished_at - r.started_at) * 1000)::float8 AS duration_ms,
        ${tokens('input_tokens')} AS input_tokens,
        ${tokens('output_tokens')} AS output_tokens,
        ${JSON.stringify(prices)}::jsonb -> (r.usage ->> 'model') AS price
      FROM agent_runs r JOIN agents a ON a.id = r.agent_id
      WHERE a.workspace_id = ${scope.workspaceId}::uuid ${agentFilter}
        AND r.created_at >= ${range.from} AND r.created_at < ${range.to}
    ), priced AS (
      SELECT *,
        CASE WHEN input_tokens IS NOT NULL OR output_tokens IS NOT NULL THEN
          (coalesce(input_tokens, 0) * (price ->> 'input_per_million_usd')::numeric
            + coalesce(output_tokens, 0) * (price ->> 'output_per_million_usd')::numeric) / 1000000
        END AS cost
      FROM scoped
    )
    SELECT GROUPING(bucket_start) = 0 AS by_bucket, GROUPING(name) = 0 AS by_agent,
      GROUPING(agent_version) = 0 AS by_version, bucket_start, agent_id, name, agent_version,
      count(*)::int AS runs,
      (count(*) FILTER (WHERE status = 'failed'))::int AS errors,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS duration_p50_ms,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS duration_p95_ms,
      coalesce(sum(input_tokens), 0)::float8 AS input_tokens,
      coalesce(sum(output_tokens), 0)::float8 AS output_tokens,
      sum(cost)::float8 AS cost_usd,
      (count(*) FILTER (WHERE cost IS NULL AND (input_tokens IS NOT NULL OR output_tokens IS NOT NULL)))::int
        AS unpriced_runs
    FROM priced
    GROUP BY GROUPING SETS ((bucket_start), (agent_id, name), (agent_id, agent_version), ())
    ORDER BY bucket_start, name, agent_id, agent_version DESC NULLS LAST`;
  const totals = rows.find((row) => !row.by_bucket && !row.by_agent && !row.by_version);
  return {
    totals: totals === undefined ? NO_RUNS : toFigures(totals),
    buckets: rows.filter((row) => row.by_bucket).map((row) => ({ start: row.bucket_start as Date, ...toFigures(row) })),
    agents: rows
      .filter((row) => row.by_agent)
      .map((row) => ({ agentId: row.agent_id as string, name: row.name as string, ...toFigures(row) })),
    versions: rows
      .filter((row) => row.by_version)
      .map((row) => ({
        agentId: row.agent_id as string,
        agentVersion: row.agent_version === null ? null : Number(row.agent_version),
        ...toFigures(row),
      })),
  };
}
