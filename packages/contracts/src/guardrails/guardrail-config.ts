// A guardrail: named rules the engine applies to a run's input, its tool calls and its streamed output.
// What every rule may say is checked here, so the manager refuses at write time what an engine could
// not apply: a regular expression outside RE2's linear-time syntax, or one whose longest match is
// unbounded (the streamed output's hold-back is the longest match of any output rule).
import { RE2JS } from 're2js';
import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { ZNonBlankString } from '../common/primitives.js';
import { regexMatchBounds } from './regex-bounds.js';

export const GUARDRAIL_POSITIONS = ['input', 'tool_arguments', 'tool_result', 'output'] as const;
export type TGuardrailPosition = (typeof GUARDRAIL_POSITIONS)[number];

export const GUARDRAIL_ACTIONS = ['block', 'redact', 'log'] as const;
export type TGuardrailAction = (typeof GUARDRAIL_ACTIONS)[number];

export const GUARDRAIL_KINDS = ['pattern', 'pii', 'prompt_injection', 'max_length', 'model_judge'] as const;
export type TGuardrailKind = (typeof GUARDRAIL_KINDS)[number];

/** What the pii kind finds. The national ids are the ones with a checkable shape. */
export const PII_ENTITIES = [
  'email',
  'phone',
  'payment_card',
  'iban',
  'us_ssn',
  'uk_nino',
  'es_dni',
  'api_key',
] as const;
export type TPiiEntity = (typeof PII_ENTITIES)[number];

/** Rules in one guardrail. */
export const GUARDRAIL_RULES_MAX_ITEMS = 50;
/** Words and phrases of one pattern rule, and how long each may be. */
export const GUARDRAIL_PHRASES_MAX_ITEMS = 200;
export const GUARDRAIL_PHRASE_MAX_LENGTH = 200;
/** Regular expressions of one pattern rule, and how long each source may be. */
export const GUARDRAIL_REGEXES_MAX_ITEMS = 50;
export const GUARDRAIL_REGEX_MAX_LENGTH = 500;
/**
 * The longest match any pattern may have, in UTF-16 code units: the most a streamed reply is held
 * back. A longer or unbounded match (`+`, `*`, `{n,}`) is refused at write time.
 */
export const GUARDRAIL_MATCH_MAX_CHARS = 512;
/** A model judge's rubric. */
export const GUARDRAIL_RUBRIC_MAX_LENGTH = 4000;
/** A max_length rule's limit, in characters. */
export const GUARDRAIL_MAX_LENGTH_LIMIT = 1_000_000;

const REGEX_RULE =
  'RE2 syntax (run by a linear-time engine, so no pattern can backtrack catastrophically: no lookaround, ' +
  `no backreferences), which must also parse as an ECMAScript regular expression, and whose longest match is at most ${GUARDRAIL_MATCH_MAX_CHARS} characters: ` +
  'bound every repetition (`\\d{1,20}`, not `\\d+`), since the streamed reply is held back by the longest match';

/** Why a regular expression cannot be a guardrail pattern, or undefined when it can. */
export function guardrailRegexProblem(source: string): string | undefined {
  try {
    RE2JS.compile(source);
  } catch (error) {
    return `Not an RE2 regular expression: ${(error as Error).message}`;
  }
  let bounds: { min: number; max: number };
  try {
    bounds = regexMatchBounds(source);
  } catch (error) {
    return `Not an ECMAScript regular expression: ${(error as Error).message}`;
  }
  if (bounds.max === Number.POSITIVE_INFINITY) {
    return 'Its longest match is unbounded: bound every repetition, for example {1,20} instead of + or *';
  }
  if (bounds.max > GUARDRAIL_MATCH_MAX_CHARS) {
    return `Its longest match (${bounds.max} characters) is over ${GUARDRAIL_MATCH_MAX_CHARS}`;
  }
  if (bounds.min === 0) return 'It can match the empty string, so it would match everywhere';
  return undefined;
}

const ZRegex = z
  .string()
  .min(1)
  .max(GUARDRAIL_REGEX_MAX_LENGTH)
  .superRefine((source, ctx) => {
    const problem = guardrailRegexProblem(source);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({ description: REGEX_RULE });

const ZPhrase = ZNonBlankString.max(GUARDRAIL_PHRASE_MAX_LENGTH);

const ruleBase = {
  name: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH).meta({
    description: "The rule's name, unique in its guardrail: a blocked run's RUN_ERROR and the run record name it",
  }),
  position: z.enum(GUARDRAIL_POSITIONS).meta({
    description:
      "What it checks: `input` (the run input's user messages, before the model), `tool_arguments` (a server-side tool call's arguments, before the call), `tool_result` (its result, before the model reads it) or `output` (the streamed reply: text and tool-call arguments, before the bytes leave the engine)",
  }),
  action: z.enum(GUARDRAIL_ACTIONS).meta({
    description:
      '`block`: an input or output match ends the run with RUN_ERROR `guardrail_blocked`, a tool match gives the model a refusal instead; `redact`: the match is replaced by `[REDACTED:<what>]`; `log`: only recorded',
  }),
};

const ZPatternRule = z
  .strictObject({
    ...ruleBase,
    kind: z.literal('pattern'),
    phrases: z
      .array(ZPhrase)
      .max(GUARDRAIL_PHRASES_MAX_ITEMS)
      .default(() => [])
      .meta({ description: 'Words or phrases, matched literally' }),
    regexes: z
      .array(ZRegex)
      .max(GUARDRAIL_REGEXES_MAX_ITEMS)
      .default(() => []),
    case_sensitive: z.boolean().default(false),
  })
  .refine((rule) => rule.phrases.length + rule.regexes.length > 0, {
    message: 'A pattern rule needs at least one phrase or regex',
    path: ['phrases'],
  });

const ZPiiRule = z.strictObject({
  ...ruleBase,
  kind: z.literal('pii'),
  entities: z
    .array(z.enum(PII_ENTITIES))
    .min(1)
    .max(PII_ENTITIES.length)
    .refine((entities) => new Set(entities).size === entities.length, { message: 'Duplicate entity' })
    .meta({
      description:
        'What to find: email, phone (international or grouped national numbers), payment_card (Luhn-checked), iban (mod-97 checked), us_ssn, uk_nino, es_dni (check letter verified), api_key (well-known key shapes)',
    }),
});

const ZPromptInjectionRule = z.strictObject({
  ...ruleBase,
  kind: z.literal('prompt_injection'),
});

const ZMaxLengthRule = z.strictObject({
  ...ruleBase,
  kind: z.literal('max_length'),
  max_chars: z
    .number()
    .int()
    .min(1)
    .max(GUARDRAIL_MAX_LENGTH_LIMIT)
    .meta({ description: 'Characters allowed; `redact` cuts what is over' }),
});

const ZModelJudgeRule = z.strictObject({
  ...ruleBase,
  kind: z.literal('model_judge'),
  rubric: ZNonBlankString.max(GUARDRAIL_RUBRIC_MAX_LENGTH).meta({
    description: 'What the judge refuses, in words; the text passes unless the judge says it breaks the rubric',
  }),
  model: ZNonBlankString.max(IDENTIFIER_MAX_LENGTH).optional().meta({
    description:
      "The judge's model name at the agent's own model provider (same endpoint, key and egress policy); omitted: the agent's model",
  }),
});

export const ZGuardrailRule = z
  .discriminatedUnion('kind', [ZPatternRule, ZPiiRule, ZPromptInjectionRule, ZMaxLengthRule, ZModelJudgeRule], {
    error: (issue) =>
      issue.code === 'invalid_union' ? `kind must be one of: ${GUARDRAIL_KINDS.join(', ')}` : undefined,
  })
  .superRefine((rule, ctx) => {
    if (rule.kind !== 'model_judge') return;
    if (rule.action === 'redact') {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'A model judge can block or log, not redact' });
    }
    // A judge reads a whole text: on the stream it could only act once every byte had left.
    if (rule.position === 'output' && rule.action !== 'log') {
      ctx.addIssue({
        code: 'custom',
        path: ['action'],
        message: 'A model judge on the output can only log: it judges a reply once it is sent',
      });
    }
  })
  .meta({ id: 'GuardrailRule' });
export type TGuardrailRule = z.infer<typeof ZGuardrailRule>;

export const ZGuardrailConfig = z
  .strictObject({
    description: z.string().trim().max(2000).nullable().default(null),
    rules: z
      .array(ZGuardrailRule)
      .min(1)
      .max(GUARDRAIL_RULES_MAX_ITEMS)
      .superRefine((rules, ctx) => {
        rules.forEach((rule, index) => {
          if (rules.findIndex((other) => other.name === rule.name) !== index) {
            ctx.addIssue({ code: 'custom', path: [index, 'name'], message: 'Duplicate rule name' });
          }
        });
      }),
  })
  .meta({
    id: 'GuardrailConfig',
    description: "Rules an agent's engine applies to its input, its tool calls and its streamed output",
  });
export type TGuardrailConfig = z.infer<typeof ZGuardrailConfig>;
export type TGuardrailConfigInput = z.input<typeof ZGuardrailConfig>;

/** A guardrail as an engine_config carries it: the agent's own and its workspace's defaults, once each. */
export const ZEngineGuardrail = ZGuardrailConfig.extend({
  id: z.uuid(),
  name: z.string(),
});
export type TEngineGuardrail = z.infer<typeof ZEngineGuardrail>;
