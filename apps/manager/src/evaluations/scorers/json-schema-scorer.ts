// The json_schema scorer: the reply, parsed as JSON as it stands, must validate against the tenant's
// schema. A tenant's schema is hostile input to Ajv, which turns it into code: each compile gets an Ajv
// of its own (no shared cache to grow, no $id of one tenant to clash with another's), patterns run in
// RE2 (linear time) instead of JavaScript's backtracking RegExp, nothing is loaded from outside the
// schema, formats are not checked (their own regular expressions are not ours to vouch for), and the
// one keyword whose cost grows with the square of the data, uniqueItems, needs a small maxItems.
import type { TScorerOf } from '@agentplane/contracts';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { RE2JS } from 're2js';
import { type CompiledScorer, NO_REPLY } from './grade.js';

/** The longest array uniqueItems may be asked to check: comparing every pair is quadratic. */
export const UNIQUE_ITEMS_MAX_ITEMS = 1000;
const ERRORS_SHOWN = 3;

/** A schema the scorer cannot use, with the path of the fault inside the scorer. */
export class ScorerSchemaError extends Error {
  override name = 'ScorerSchemaError';
  constructor(
    readonly path: PropertyKey[],
    message: string,
  ) {
    super(message);
  }
}

/** Ajv's regular expression engine, as RE2: the same search semantics as RegExp#test, in linear time. */
function re2RegExp(pattern: string, _unicodeFlag: string) {
  const compiled = RE2JS.compile(pattern);
  return { test: (text: string) => compiled.matcher(text).find(), toString: () => pattern };
}

function findUnboundedUniqueItems(node: unknown, path: PropertyKey[]): PropertyKey[] | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  const record = node as Record<string, unknown>;
  if (record.uniqueItems === true) {
    const { maxItems } = record;
    if (typeof maxItems !== 'number' || maxItems > UNIQUE_ITEMS_MAX_ITEMS) return [...path, 'uniqueItems'];
  }
  for (const [key, child] of Object.entries(record)) {
    const found = findUnboundedUniqueItems(child, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Compiles the scorer's schema, or throws a ScorerSchemaError saying why it cannot be used. */
export function compileJsonSchemaValidator(schema: Record<string, unknown>): ValidateFunction {
  const unbounded = findUnboundedUniqueItems(schema, ['schema']);
  if (unbounded !== undefined) {
    throw new ScorerSchemaError(unbounded, `uniqueItems needs a maxItems of at most ${UNIQUE_ITEMS_MAX_ITEMS}`);
  }
  const ajv = new Ajv2020({
    strict: false,
    validateFormats: false,
    allErrors: false,
    code: { regExp: re2RegExp as never },
  });
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new ScorerSchemaError(['schema'], `Not a usable JSON Schema: ${(error as Error).message}`.slice(0, 500));
  }
}

function describeErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, ERRORS_SHOWN)
    .map((error) => `${error.instancePath === '' ? 'the reply' : error.instancePath} ${error.message ?? 'is invalid'}`)
    .join('; ');
}

export function compileJsonSchema(scorer: TScorerOf<'json_schema'>): CompiledScorer {
  const validate = compileJsonSchemaValidator(scorer.schema);
  return ({ observation }) => {
    if (observation.reply === null) return NO_REPLY;
    let reply: unknown;
    try {
      reply = JSON.parse(observation.reply);
    } catch {
      return { score: 0, reason: 'The reply is not JSON' };
    }
    return validate(reply)
      ? { score: 1, reason: 'The reply is JSON valid against the schema' }
      : {
          score: 0,
          reason: `The reply is JSON, not valid against the schema: ${describeErrors(validate.errors ?? [])}`,
        };
  };
}
