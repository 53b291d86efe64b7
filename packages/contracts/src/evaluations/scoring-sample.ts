// What a scorer grades: one run as observed (its reply, tool calls, latency and tokens), the input it
// answered and what the dataset item expected; and what grading gives back. An experiment builds a
// sample from each run it records; POST /scorers/test takes one as it is.
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { SCORER_KINDS, ZScorerList } from './scorer.js';

/** A reply or an input message's text. */
export const SAMPLE_TEXT_MAX_LENGTH = 200_000;
/** Messages of an input, and tool calls of a run or of an expectation. */
export const SAMPLE_MESSAGES_MAX_ITEMS = 200;
export const SAMPLE_TOOL_CALLS_MAX_ITEMS = 100;

const ZToolCall = z.strictObject({
  name: z.string().min(1).max(IDENTIFIER_MAX_LENGTH),
  arguments: z.record(z.string(), z.unknown()).default(() => ({})),
});

export const ZScoringObservation = z
  .strictObject({
    reply: z.string().max(SAMPLE_TEXT_MAX_LENGTH).nullable().meta({
      description: "The run's final reply; null when it gave none (it failed, or only called tools)",
    }),
    tool_calls: z
      .array(ZToolCall)
      .max(SAMPLE_TOOL_CALLS_MAX_ITEMS)
      .default(() => []),
    latency_ms: z.number().int().min(0).optional(),
    tokens: z
      .strictObject({
        input: z.number().int().min(0),
        output: z.number().int().min(0),
        total: z.number().int().min(0),
      })
      .optional(),
  })
  .meta({ id: 'ScoringObservation', description: 'One run as observed' });
export type TScoringObservation = z.infer<typeof ZScoringObservation>;

export const ZScoringExpected = z
  .strictObject({
    reply: z.string().max(SAMPLE_TEXT_MAX_LENGTH).optional(),
    tool_calls: z
      .array(ZToolCall.extend({ arguments: z.record(z.string(), z.unknown()).optional() }))
      .max(SAMPLE_TOOL_CALLS_MAX_ITEMS)
      .optional()
      .meta({ description: 'Calls the run should make; the arguments given are compared as a subset' }),
  })
  .meta({ id: 'ScoringExpected', description: 'What a dataset item expects of a run' });
export type TScoringExpected = z.infer<typeof ZScoringExpected>;

export const ZScoringMessage = z.strictObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().max(SAMPLE_TEXT_MAX_LENGTH),
});

export const ZScoringSample = z.strictObject({
  input: z
    .array(ZScoringMessage)
    .max(SAMPLE_MESSAGES_MAX_ITEMS)
    .default(() => [])
    .meta({
      description: 'The messages the run answered, as the judge is shown them',
    }),
  observation: ZScoringObservation,
  expected: ZScoringExpected.default(() => ({})),
});
export type TScoringSample = z.infer<typeof ZScoringSample>;
export type TScoringSampleInput = z.input<typeof ZScoringSample>;

export const ZScorerResult = z
  .strictObject({
    name: z.string(),
    kind: z.enum(SCORER_KINDS),
    score: z.number().min(0).max(1).nullable().meta({
      description:
        'From 0 to 1; null when the scorer could not grade (its judge failed or did not answer, or the sample lacks what it reads), which aggregates count apart, never as 0',
    }),
    reason: z.string(),
    judge_tokens: z
      .strictObject({ input: z.number().int().min(0), output: z.number().int().min(0) })
      .optional()
      .meta({ description: "A model judge's own token use, when its server reported it" }),
  })
  .meta({ id: 'ScorerResult' });
export type TScorerResult = z.infer<typeof ZScorerResult>;

export const ZScorerTestRequest = z
  .strictObject({ scorers: ZScorerList, sample: ZScoringSample })
  .meta({ id: 'ScorerTestRequest', description: 'Scorers to try on one sample, without running an agent' });
export type TScorerTestRequest = z.infer<typeof ZScorerTestRequest>;

export const ZScorerTestResponse = z
  .strictObject({ results: z.array(ZScorerResult) })
  .meta({ id: 'ScorerTestResponse', description: 'One result per scorer, in the order given' });
export type TScorerTestResponse = z.infer<typeof ZScorerTestResponse>;
