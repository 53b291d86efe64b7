// Online scoring (issue 36): a share of an agent's production runs graded by scorers once they end,
// the scores kept with each run and summed in its usage report. Which runs are graded is decided once
// per run, from a hash of its id, so a run is sampled or not whoever looks and however often.
import { z } from 'zod';
import { RUN_SOURCES } from '../agents/agent-run.js';
import { ZIsoDateTime } from '../common/primitives.js';
import { ZScorer, ZScorerList } from './scorer.js';

/** Runs of these sources can be sampled: an experiment's runs are graded by their experiment. */
export const ONLINE_SCORING_SOURCES = RUN_SOURCES.filter((source) => source !== 'experiment') as Exclude<
  (typeof RUN_SOURCES)[number],
  'experiment'
>[];

const ZSampleRate = z.number().min(0).max(1).meta({
  description:
    'The share of ended runs graded, from 0 (none) to 1 (all). A run is in the sample when a hash of its id falls under the rate, so the decision is the same however often it is made',
});

const ZSources = z
  .array(z.enum(ONLINE_SCORING_SOURCES, { error: `Must be one of: ${ONLINE_SCORING_SOURCES.join(', ')}` }))
  .min(1)
  .max(ONLINE_SCORING_SOURCES.length)
  .refine((sources) => new Set(sources).size === sources.length, { message: 'Duplicate source' })
  .meta({
    description: "The run sources sampled; default every source but 'experiment', which is never sampled",
  });

export const ZOnlineScoringUpdate = z
  .strictObject({
    enabled: z.boolean(),
    sample_rate: ZSampleRate,
    scorers: ZScorerList.meta({
      description:
        "Scorers run on each sampled run. A run has no dataset item: a scorer that needs an expectation (exact_match or tool_called without their own value) gives no score. A model judge's key is sealed at rest",
    }),
    sources: ZSources.optional(),
  })
  .meta({ id: 'OnlineScoringUpdate', description: "An agent's online scoring, replaced as a whole" });
export type TOnlineScoringUpdate = z.infer<typeof ZOnlineScoringUpdate>;
export type TOnlineScoringUpdateInput = z.input<typeof ZOnlineScoringUpdate>;

export const ZOnlineScoring = z
  .strictObject({
    enabled: z.boolean(),
    sample_rate: z.number().min(0).max(1),
    scorers: z.array(ZScorer).meta({ description: 'Empty until the settings are first written' }),
    sources: z.array(z.enum(ONLINE_SCORING_SOURCES)),
    queued_runs: z.number().int().min(0).meta({ description: 'Sampled runs waiting to be scored' }),
    dropped_runs: z.number().int().min(0).meta({
      description:
        'Sampled runs not scored because the queue was full (the operator’s ONLINE_SCORING_MAX_QUEUED_PER_AGENT runs waiting)',
    }),
    last_dropped_at: ZIsoDateTime.nullable(),
    updated_at: ZIsoDateTime.nullable().meta({ description: 'null: never written (the defaults, disabled)' }),
  })
  .meta({ id: 'OnlineScoring', description: "An agent's online scoring" });
export type TOnlineScoring = z.infer<typeof ZOnlineScoring>;
