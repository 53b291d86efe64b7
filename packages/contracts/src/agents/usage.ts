// Usage and cost reports (GET /agents/{id}/usage, GET /usage): runs, failures, durations, tokens and
// cost per hour or day (UTC), read from the runs' records and priced by the manager's price table.
import { z } from 'zod';
import { ZIsoDateTime, ZUuid } from '../common/primitives.js';
import { ZScorerUsage } from '../evaluations/run-score.js';

export const USAGE_BUCKETS = ['hour', 'day'] as const;
export type TUsageBucket = (typeof USAGE_BUCKETS)[number];

export const ZUsageQuery = z.strictObject({
  from: ZIsoDateTime.optional().meta({
    description: 'Start of the range, inclusive (runs by created_at); default `to` minus 24 h (hour) or 30 days (day)',
  }),
  to: ZIsoDateTime.optional().meta({ description: 'End of the range, exclusive; default now' }),
  bucket: z
    .enum(USAGE_BUCKETS)
    .default('day')
    .meta({ description: 'Bucket width, in UTC; the range may span at most 31 days by hour, 366 days by day' }),
});
export type TUsageQuery = z.infer<typeof ZUsageQuery>;

export const ZAgentUsageQuery = ZUsageQuery.extend({
  group_by: z.enum(['version']).optional().meta({
    description: 'version: also report the figures per agent version the runs ran with (`versions`)',
  }),
});
export type TAgentUsageQuery = z.infer<typeof ZAgentUsageQuery>;

const count = z.number().int().min(0);
const milliseconds = z.number().min(0).nullable();

export const ZUsageFigures = z.strictObject({
  runs: count,
  errors: count.meta({ description: 'Runs that failed' }),
  duration_p50_ms: milliseconds.meta({ description: 'Median of finished_at - started_at; null without finished runs' }),
  duration_p95_ms: milliseconds.meta({ description: '95th percentile (interpolated) of the same' }),
  input_tokens: count,
  output_tokens: count,
  cost_usd: z.number().min(0).nullable().meta({
    description: "Sum of the priced runs' cost at today's price table; null when no run could be priced",
  }),
  unpriced_runs: count.meta({
    description:
      'Runs with token usage but no price (a model missing from the price table): their cost is not in cost_usd',
  }),
});
export type TUsageFigures = z.infer<typeof ZUsageFigures>;

export const ZUsageBucketFigures = ZUsageFigures.extend({
  start: ZIsoDateTime.meta({ description: "The bucket's first instant (UTC)" }),
});

const ZUsageReportBase = z.strictObject({
  from: ZIsoDateTime,
  to: ZIsoDateTime,
  bucket: z.enum(USAGE_BUCKETS),
  totals: ZUsageFigures,
  buckets: z.array(ZUsageBucketFigures).meta({ description: 'Buckets with at least one run, oldest first' }),
});

const ZScores = z.array(ZScorerUsage).meta({
  description: "Each online scorer's results over the runs created in the range (or bucket, or version), by name",
});

export const ZAgentUsage = ZUsageReportBase.extend({
  scores: ZScores,
  buckets: z
    .array(ZUsageBucketFigures.extend({ scores: ZScores }))
    .meta({ description: 'Buckets with at least one run, oldest first' }),
  versions: z
    .array(
      ZUsageFigures.extend({
        scores: ZScores,
        agent_version: z
          .number()
          .int()
          .min(1)
          .nullable()
          .meta({ description: 'The version the runs ran with; null for runs recorded before versions' }),
      }),
    )
    .optional()
    .meta({
      description: 'With ?group_by=version: each version with runs in the range, newest first, over the whole range',
    }),
}).meta({ id: 'AgentUsage', description: "An agent's usage and cost" });
export type TAgentUsage = z.infer<typeof ZAgentUsage>;

export const ZWorkspaceUsage = ZUsageReportBase.extend({
  agents: z
    .array(ZUsageFigures.extend({ agent_id: ZUuid, name: z.string() }))
    .meta({ description: 'Each agent with runs in the range, over the whole range' }),
}).meta({ id: 'WorkspaceUsage', description: "The workspace's usage and cost, in total and per agent" });
export type TWorkspaceUsage = z.infer<typeof ZWorkspaceUsage>;
