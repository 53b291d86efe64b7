// A scorer: a declarative rule that grades one agent run (its reply, tool calls, latency and tokens)
// against a dataset item's expectations, with a score from 0 to 1 and a reason. Everything a tenant may
// say is checked here, so what is stored can always be run: regular expressions in RE2's linear-time
// syntax, JSON Schemas bounded in size and depth (the manager also compiles them at write time), and a
// model judge's model named like an LLM agent's, its key a secret.
import { RE2JS } from 're2js';
import { z } from 'zod';
import { ZModelApiKey, ZModelBaseUrl } from '../agents/agent-frameworks.js';
import { findJsonProblem } from '../common/json-checks.js';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { EGRESS_RULE, ZNonBlankString } from '../common/primitives.js';
import { SECRET_FIELD_RULE } from '../secrets/secret-mask.js';
import { SECRET_QUERY_RULE } from '../secrets/secret-url.js';

export const SCORER_KINDS = [
  'exact_match',
  'contains',
  'regex',
  'json_schema',
  'tool_called',
  'latency',
  'tokens',
  'model_judge',
] as const;
export type TScorerKind = (typeof SCORER_KINDS)[number];

/** Scorers in one list (an experiment's, or one test request's). */
export const SCORERS_MAX_ITEMS = 20;
/** A text to compare with or look for. */
export const SCORER_TEXT_MAX_LENGTH = 10_000;
/** Texts of one contains scorer. */
export const SCORER_TEXTS_MAX_ITEMS = 50;
/** A regular expression's source. */
export const SCORER_REGEX_MAX_LENGTH = 1_000;
/** A JSON Schema, in bytes of JSON, and how deeply it nests. */
export const SCORER_JSON_SCHEMA_MAX_BYTES = 32 * 1024;
export const SCORER_JSON_SCHEMA_MAX_DEPTH = 16;
/** Arguments a tool_called scorer names. */
export const SCORER_ARGUMENTS_MAX_ENTRIES = 50;
/** A model judge's rubric. */
export const SCORER_RUBRIC_MAX_LENGTH = 4_000;
/** The widest score scale a judge may be asked to use. */
export const SCORER_SCALE_MAX = 100;

/** Why `source` cannot be a scorer's regular expression, or undefined when it can. */
export function scorerRegexProblem(source: string): string | undefined {
  try {
    RE2JS.compile(source);
    return undefined;
  } catch (error) {
    return `Not an RE2 regular expression (no lookaround, no backreferences): ${(error as Error).message}`;
  }
}

const ZRegexSource = z
  .string()
  .min(1)
  .max(SCORER_REGEX_MAX_LENGTH)
  .superRefine((source, ctx) => {
    const problem = scorerRegexProblem(source);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'RE2 syntax, run by a linear-time engine so that no pattern can backtrack catastrophically: no lookaround, no backreferences',
  });

const ZText = z.string().min(1).max(SCORER_TEXT_MAX_LENGTH);

const scorerBase = {
  name: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH).meta({
    description: 'Unique among the scorers of one list; results and aggregates are keyed by it',
  }),
};

const ZExactMatchScorer = z.strictObject({
  ...scorerBase,
  kind: z.literal('exact_match'),
  value: ZText.optional().meta({
    description: "The text the reply must equal; omitted: the dataset item's expected reply",
  }),
  case_sensitive: z.boolean().default(true),
  normalize_whitespace: z.boolean().default(false).meta({
    description: 'Trim both texts and collapse every run of white space to one space before comparing',
  }),
});

const ZContainsScorer = z.strictObject({
  ...scorerBase,
  kind: z.literal('contains'),
  texts: z.array(ZText).min(1).max(SCORER_TEXTS_MAX_ITEMS),
  mode: z.enum(['all', 'any']).default('all').meta({
    description: '`all`: the score is the share of the texts found; `any`: 1 when one is found, else 0',
  }),
  case_sensitive: z.boolean().default(false),
});

const ZRegexScorer = z.strictObject({
  ...scorerBase,
  kind: z.literal('regex'),
  pattern: ZRegexSource,
  case_sensitive: z.boolean().default(true),
  full_match: z.boolean().default(false).meta({
    description: 'Whether the whole reply must match, rather than some part of it',
  }),
});

const ZJsonSchema = z
  .record(z.string(), z.unknown())
  .superRefine((schema, ctx) => {
    const problem = findJsonProblem(schema, { maxDepth: SCORER_JSON_SCHEMA_MAX_DEPTH });
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message });
    else if (new TextEncoder().encode(JSON.stringify(schema)).length > SCORER_JSON_SCHEMA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `Must be at most ${SCORER_JSON_SCHEMA_MAX_BYTES} bytes of JSON` });
    }
  })
  .meta({
    description:
      'A JSON Schema (draft 2020-12 keywords), compiled when it is written: `pattern` and `patternProperties` run in RE2, `format` is not checked, `$ref` only within the schema, and `uniqueItems` needs a `maxItems` of at most 1000',
  });

const ZJsonSchemaScorer = z.strictObject({
  ...scorerBase,
  kind: z.literal('json_schema'),
  schema: ZJsonSchema,
});

const ZArguments = z
  .record(z.string(), z.unknown())
  .refine((record) => Object.keys(record).length <= SCORER_ARGUMENTS_MAX_ENTRIES, {
    message: `At most ${SCORER_ARGUMENTS_MAX_ENTRIES} arguments`,
  });

const ZToolCalledScorer = z.strictObject({
  ...scorerBase,
  kind: z.literal('tool_called'),
  tool: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH).optional().meta({
    description:
      "The tool that must have been called; omitted: every call of the dataset item's expected tool_calls (score: the share found)",
  }),
  arguments: ZArguments.optional().meta({
    description:
      'Arguments the call must have had, compared as a subset: each named one must be equal (objects compared the same way, recursively), others may be there too',
  }),
  argument_patterns: z
    .record(z.string(), ZRegexSource)
    .refine((record) => Object.keys(record).length <= SCORER_ARGUMENTS_MAX_ENTRIES, {
      message: `At most ${SCORER_ARGUMENTS_MAX_ENTRIES} patterns`,
    })
    .optional()
    .meta({
      description: 'A regular expression per argument that its value (a string, or else its JSON) must match somewhere',
    }),
});

const ZLimit = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const limitFields = (unit: string) => ({
  max: ZLimit.meta({ description: `Above this many ${unit} the score is 0` }),
  target: ZLimit.optional().meta({
    description: `At or below this many ${unit} the score is 1, falling linearly to 0 at max; omitted: 1 up to max`,
  }),
});

const ZLatencyScorer = z.strictObject({ ...scorerBase, kind: z.literal('latency'), ...limitFields('milliseconds') });

const ZTokensScorer = z.strictObject({
  ...scorerBase,
  kind: z.literal('tokens'),
  ...limitFields('tokens (input and output together)'),
});

export const JUDGE_PROVIDERS = ['openai'] as const;

export const ZJudgeModel = z
  .strictObject({
    provider: z.enum(JUDGE_PROVIDERS).meta({ description: 'The OpenAI chat-completions API (also vLLM, Ollama…)' }),
    name: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH),
    baseUrl: ZModelBaseUrl.meta({
      description: `The OpenAI-compatible server that judges, called by the manager. ${SECRET_QUERY_RULE} ${EGRESS_RULE}`,
    }),
    apiKey: ZModelApiKey.optional().meta({ description: `The server's API key. ${SECRET_FIELD_RULE}` }),
  })
  .meta({ id: 'JudgeModel', description: "A model judge's model" });

const ZJudgeScale = z
  .strictObject({
    min: z.number().int().min(0).max(SCORER_SCALE_MAX),
    max: z.number().int().min(1).max(SCORER_SCALE_MAX),
  })
  .refine((scale) => scale.min < scale.max, { message: 'min must be below max', path: ['max'] });

const ZModelJudgeScorer = z.strictObject({
  ...scorerBase,
  kind: z.literal('model_judge'),
  rubric: ZNonBlankString.max(SCORER_RUBRIC_MAX_LENGTH).meta({
    description: 'What a good reply is, in words; the judge reads it with the input, the expected reply and the reply',
  }),
  model: ZJudgeModel,
  scale: ZJudgeScale.default({ min: 1, max: 5 }).meta({
    description: "The judge's scale, mapped linearly onto 0–1",
  }),
});

export const ZScorer = z
  .discriminatedUnion(
    'kind',
    [
      ZExactMatchScorer,
      ZContainsScorer,
      ZRegexScorer,
      ZJsonSchemaScorer,
      ZToolCalledScorer,
      ZLatencyScorer,
      ZTokensScorer,
      ZModelJudgeScorer,
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union' ? `kind must be one of: ${SCORER_KINDS.join(', ')}` : undefined,
    },
  )
  .superRefine((scorer, ctx) => {
    if (scorer.kind === 'tool_called' && scorer.tool === undefined) {
      for (const field of ['arguments', 'argument_patterns'] as const) {
        if (scorer[field] !== undefined) {
          ctx.addIssue({ code: 'custom', path: [field], message: 'Only with a tool named' });
        }
      }
    }
    if ((scorer.kind === 'latency' || scorer.kind === 'tokens') && (scorer.target ?? 0) > scorer.max) {
      ctx.addIssue({ code: 'custom', path: ['target'], message: 'Must be at most max' });
    }
  })
  .meta({ id: 'Scorer', description: 'A rule that grades one run from 0 to 1, with a reason' });
export type TScorer = z.infer<typeof ZScorer>;
export type TScorerInput = z.input<typeof ZScorer>;
export type TScorerOf<K extends TScorerKind> = Extract<TScorer, { kind: K }>;

export const ZScorerList = z
  .array(ZScorer)
  .min(1)
  .max(SCORERS_MAX_ITEMS)
  .superRefine((scorers, ctx) => {
    scorers.forEach((scorer, index) => {
      if (scorers.findIndex((other) => other.name === scorer.name) !== index) {
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: 'Duplicate scorer name' });
      }
    });
  });
