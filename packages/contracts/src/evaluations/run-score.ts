// What online scoring leaves on a run (its scores, in the runs list) and in an agent's usage report
// (each scorer's mean over the runs of a range or bucket). Apart from online-scoring.ts, which names the
// run sources: the runs and usage contracts import this, and it imports neither.
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { SCORER_KINDS } from './scorer.js';

/** A stored reason, as the runs list shows it. */
export const RUN_SCORE_REASON_MAX_LENGTH = 2_000;

export const ZRunScore = z
  .strictObject({
    name: z.string().max(IDENTIFIER_MAX_LENGTH),
    kind: z.enum(SCORER_KINDS),
    score: z.number().min(0).max(1).nullable().meta({
      description:
        'From 0 to 1; null when the scorer could not grade (its judge failed, or the run lacks what it reads)',
    }),
    reason: z.string().max(RUN_SCORE_REASON_MAX_LENGTH),
  })
  .meta({ id: 'RunScore', description: "One online scorer's grade of a run" });
export type TRunScore = z.infer<typeof ZRunScore>;

export const ZScorerUsage = z
  .strictObject({
    name: z.string(),
    mean: z.number().min(0).max(1).nullable().meta({ description: 'Mean of the scores given; null when none was' }),
    n: z.number().int().min(0).meta({ description: 'Runs the scorer gave a score' }),
    null_count: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Runs it graded without a score (counted apart, never as 0)' }),
  })
  .meta({ id: 'ScorerUsage', description: "One online scorer's results over runs created in a range" });
export type TScorerUsage = z.infer<typeof ZScorerUsage>;
