// What an experiment found: one result per (item, version, repeat), the aggregates per version and
// scorer (with 95% confidence intervals), a pairwise comparison of two versions item by item, and the
// export's query.
import { z } from 'zod';
import { ZPaginationQuery } from '../common/pagination.js';
import { ZIsoDateTime, ZUuid } from '../common/primitives.js';
import { EXPERIMENT_RESULT_STATES, ZExperiment, ZExperimentAgentVersion } from './experiment.js';
import { SCORER_KINDS } from './scorer.js';
import { ZScorerResult } from './scoring-sample.js';

/** Characters of a run's reply kept in its result (the rest is cut, and `reply_truncated` says so). */
export const EXPERIMENT_REPLY_MAX_LENGTH = 20_000;

// Digits only, as the pagination parameters: "1e3", " 5" and "" are a 400, not a version.
const ZVersionQueryParam = z
  .string()
  .regex(/^\d{1,15}$/, { error: 'Must be a version number written in digits' })
  .transform(Number)
  .pipe(ZExperimentAgentVersion);

const ZTokens = z.strictObject({
  input: z.number().int().min(0),
  output: z.number().int().min(0),
  total: z.number().int().min(0),
});

export const ZExperimentResult = z
  .strictObject({
    item_id: ZUuid,
    position: z.number().int().min(0).meta({ description: "The item's place in the dataset version, from 0" }),
    agent_version: ZExperimentAgentVersion,
    repeat: z.number().int().min(0).meta({ description: 'From 0' }),
    run_id: z.string().nullable().meta({ description: 'The agent run (agent_runs), once queued' }),
    state: z.enum(EXPERIMENT_RESULT_STATES),
    reply: z.string().nullable().meta({ description: 'The final assistant reply' }),
    reply_truncated: z.boolean(),
    tool_calls: z.array(z.strictObject({ name: z.string(), arguments: z.record(z.string(), z.unknown()) })).nullable(),
    latency_ms: z.number().int().min(0).nullable().meta({ description: 'From the run’s start to its end' }),
    tokens: ZTokens.nullable(),
    scores: z.array(ZScorerResult).nullable().meta({
      description: 'One per scorer, in the experiment’s order; null unless scored (a failed run is not graded)',
    }),
    error: z.string().nullable(),
    error_code: z.string().nullable(),
    finished_at: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'ExperimentResult', description: 'One run of one item on one version' });
export type TExperimentResult = z.infer<typeof ZExperimentResult>;

export const ZExperimentResultsQuery = ZPaginationQuery.extend({
  version: ZVersionQueryParam.optional().meta({ description: 'Only this agent version’s results' }),
  item: ZUuid.optional().meta({ description: 'Only this item’s results' }),
  state: z.enum(EXPERIMENT_RESULT_STATES).optional(),
});
export type TExperimentResultsQuery = z.infer<typeof ZExperimentResultsQuery>;

/** Bins of a scorer aggregate's `distribution`: tenths of the 0–1 scale. */
export const SCORE_DISTRIBUTION_BINS = 10;

export const ZConfidenceInterval = z
  .strictObject({
    level: z.literal(0.95),
    low: z.number(),
    high: z.number(),
    unit: z.enum(['run', 'item']).meta({
      description:
        'What one observation is: with one repeat, a run; with more, an item (the mean of its repeats’ scores), since repeats of one item are not independent',
    }),
    n: z.number().int().min(2).meta({ description: 'Observations (units) the interval is over' }),
  })
  .meta({
    id: 'ConfidenceInterval',
    description: "Student's t interval of the mean over the units; null below two units",
  });
export type TConfidenceInterval = z.infer<typeof ZConfidenceInterval>;

export const ZScorerAggregate = z
  .strictObject({
    name: z.string(),
    kind: z.enum(SCORER_KINDS),
    mean: z.number().nullable().meta({ description: 'Mean of the scores (null ones left out); null with none' }),
    n: z.number().int().min(0).meta({ description: 'Scores that are not null' }),
    null_count: z.number().int().min(0).meta({ description: 'Scored runs this scorer could not grade' }),
    ci: ZConfidenceInterval.nullable(),
    distribution: z.array(z.number().int().min(0)).length(SCORE_DISTRIBUTION_BINS).meta({
      description:
        'How many scores fall in each tenth: [0, 0.1), [0.1, 0.2) … [0.8, 0.9), and [0.9, 1] (the last bin includes 1); null scores are in no bin (they are null_count), so the bins sum to n',
    }),
  })
  .meta({ id: 'ScorerAggregate' });
export type TScorerAggregate = z.infer<typeof ZScorerAggregate>;

const ZNullableNumber = z.number().nullable();

export const ZVersionAggregate = z
  .strictObject({
    agent_version: ZExperimentAgentVersion,
    runs: z.number().int().min(0),
    scored: z.number().int().min(0),
    failed: z.number().int().min(0),
    latency_ms: z
      .strictObject({ mean: ZNullableNumber, p50: ZNullableNumber, p95: ZNullableNumber })
      .meta({ description: 'Over the runs that ended (scored or failed) with a start and an end' }),
    tokens: z
      .strictObject({ mean: ZNullableNumber })
      .meta({ description: 'Mean total tokens over the runs that reported their usage' }),
    scorers: z.array(ZScorerAggregate),
  })
  .meta({ id: 'VersionAggregate' });
export type TVersionAggregate = z.infer<typeof ZVersionAggregate>;

export const ZExperimentDetail = ZExperiment.extend({
  aggregates: z.array(ZVersionAggregate).meta({ description: 'One per agent version, in the experiment’s order' }),
}).meta({ id: 'ExperimentDetail', description: 'An experiment with its aggregates so far' });
export type TExperimentDetail = z.infer<typeof ZExperimentDetail>;

export const COMPARISON_VERDICTS = ['improved', 'regressed', 'unchanged'] as const;
export type TComparisonVerdict = (typeof COMPARISON_VERDICTS)[number];

export const ZComparisonQuery = ZPaginationQuery.extend({
  base: ZVersionQueryParam.meta({ description: 'The version compared against' }),
  candidate: ZVersionQueryParam.meta({ description: 'The version judged' }),
  verdict: z.enum(COMPARISON_VERDICTS).optional().meta({ description: 'Only the items with this verdict' }),
  reply_changed: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .meta({ description: 'true: only the items whose reply changed; false: only those whose reply did not' }),
});
export type TComparisonQuery = z.infer<typeof ZComparisonQuery>;

const ZComparisonSide = z.strictObject({
  reply: z.string().nullable().meta({ description: 'The first repeat’s reply' }),
  runs: z.number().int().min(0).meta({ description: 'Final runs (scored or failed)' }),
  failed: z.number().int().min(0),
});

export const ZComparisonItem = z
  .strictObject({
    item_id: ZUuid,
    position: z.number().int().min(0),
    verdict: z.enum(COMPARISON_VERDICTS).meta({
      description:
        'From the mean of the scorers’ deltas (candidate − base, each over the means of the item’s repeats): above 0 improved, below 0 regressed; with no delta to read, a side with fewer failed runs is the better one; else unchanged',
    }),
    reply_changed: z.boolean().meta({ description: 'Whether some repeat’s reply differs between the two versions' }),
    base: ZComparisonSide,
    candidate: ZComparisonSide,
    scores: z.array(
      z.strictObject({
        name: z.string(),
        base: ZNullableNumber,
        candidate: ZNullableNumber,
        delta: ZNullableNumber.meta({ description: 'candidate − base; null when either is' }),
      }),
    ),
  })
  .meta({ id: 'ComparisonItem' });
export type TComparisonItem = z.infer<typeof ZComparisonItem>;

export const ZExperimentComparison = z
  .strictObject({
    base: ZExperimentAgentVersion,
    candidate: ZExperimentAgentVersion,
    counts: z.strictObject({
      items: z.number().int().min(0),
      improved: z.number().int().min(0),
      regressed: z.number().int().min(0),
      unchanged: z.number().int().min(0),
      reply_changed: z.number().int().min(0),
    }),
    matched: z.number().int().min(0).meta({
      description: 'Items the filters (verdict, reply_changed) keep, which the page is of; without filters, every item',
    }),
    items: z.array(ZComparisonItem).meta({
      description: 'A page of the items the filters keep, in the dataset’s order',
    }),
  })
  .meta({
    id: 'ExperimentComparison',
    description: 'Two versions of one experiment, item by item; counts over all items, whatever the filters',
  });
export type TExperimentComparison = z.infer<typeof ZExperimentComparison>;

export const EXPERIMENT_EXPORT_FORMATS = ['jsonl', 'csv'] as const;

export const ZExperimentExportQuery = z.object({
  format: z.enum(EXPERIMENT_EXPORT_FORMATS).default('jsonl').meta({
    description: 'jsonl: one ExperimentResult per line; csv: one row per result, one column per scorer',
  }),
});
export type TExperimentExportQuery = z.infer<typeof ZExperimentExportQuery>;

export const ZExperimentExport = z.string().meta({
  id: 'ExperimentExport',
  description: 'JSON Lines (one ExperimentResult per line) or CSV (RFC 4180, a header row, a column per scorer)',
});
