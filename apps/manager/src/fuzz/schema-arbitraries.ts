// Values shaped by the JSON Schemas of an OpenAPI document: mostly valid, so that a request gets past
// validation often enough to reach the handler, and small (long and deep values come from mutations).
import fc from 'fast-check';

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  examples?: unknown[];
};

/** Generated strings stay short; a schema's own maxLength can be 100,000. */
const STRING_LENGTH_MAX = 24;
const ITEMS_MAX = 3;
const DEPTH_MAX = 8;

const ANY_JSON = fc.jsonValue({ maxDepth: 2 });

export class SchemaArbitraries {
  /**
   * extraExamples: valid values for named component schemas, used like the document's own examples
   * (the document's can name resources a test database does not have).
   */
  constructor(
    private readonly components: Record<string, JsonSchema>,
    private readonly extraExamples: Record<string, unknown[]> = {},
  ) {}

  /** An arbitrary of values for `schema`; its examples, when it has some, come up often. */
  valueOf(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
    if (schema === undefined || depth > DEPTH_MAX) return ANY_JSON;
    const generated = this.generate(schema, depth);
    const examples = schema.examples ?? [];
    if (examples.length === 0) return generated;
    return fc.oneof({ arbitrary: fc.constantFrom(...examples), weight: 2 }, { arbitrary: generated, weight: 1 });
  }

  private resolve(ref: string): JsonSchema {
    const name = ref.replace('#/components/schemas/', '');
    const schema = this.components[name];
    if (schema === undefined) throw new Error(`Unknown schema ${ref}`);
    const extra = this.extraExamples[name] ?? [];
    return extra.length === 0 ? schema : { ...schema, examples: [...(schema.examples ?? []), ...extra] };
  }

  private generate(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    if (schema.$ref !== undefined) return this.valueOf(this.resolve(schema.$ref), depth + 1);
    if (schema.const !== undefined) return fc.constant(schema.const);
    if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
    const variants = schema.oneOf ?? schema.anyOf;
    if (variants !== undefined) return fc.oneof(...variants.map((variant) => this.valueOf(variant, depth + 1)));
    if (schema.allOf !== undefined) {
      // zod-to-openapi writes allOf for a $ref with extra keywords: the first part carries the shape.
      return this.valueOf(schema.allOf[0], depth + 1);
    }
    const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
    if (types.length === 0) return ANY_JSON;
    return fc.oneof(...types.map((type) => this.ofType(type, schema, depth)));
  }

  private ofType(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 });
      case 'number': {
        const min = schema.exclusiveMinimum ?? schema.minimum ?? -1000;
        return fc.double({
          min,
          max: schema.maximum ?? 1000,
          noNaN: true,
          minExcluded: schema.exclusiveMinimum !== undefined,
        });
      }
      case 'string':
        return stringOf(schema);
      case 'array':
        return fc.array(this.valueOf(schema.items, depth + 1), {
          minLength: schema.minItems ?? 0,
          maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? ITEMS_MAX, ITEMS_MAX)),
        });
      case 'object':
        return this.objectOf(schema, depth);
      default:
        return ANY_JSON;
    }
  }

  private objectOf(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    const properties = schema.properties ?? {};
    const shape = Object.fromEntries(
      Object.entries(properties).map(([key, property]) => [key, this.valueOf(property, depth + 1)]),
    );
    const known = fc.record(shape, { requiredKeys: schema.required ?? [] });
    const extra = schema.additionalProperties;
    if (typeof extra !== 'object') return known;
    const map = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), this.valueOf(extra, depth + 1), {
      maxKeys: ITEMS_MAX,
    });
    return fc.tuple(known, map).map(([fixed, more]) => ({ ...more, ...(fixed as object) }));
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    case 'date-time':
      return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  }
  const maxLength = Math.min(schema.maxLength ?? STRING_LENGTH_MAX, STRING_LENGTH_MAX);
  const minLength = Math.min(schema.minLength ?? 0, maxLength);
  const anyString = fc.string({ minLength, maxLength });
  if (schema.pattern === undefined) return anyString;
  return fc.oneof(matching(schema.pattern) ?? anyString, anyString);
}

/** Strings matching `pattern`, or undefined for a pattern fast-check cannot generate from (a lookahead). */
function matching(pattern: string): fc.Arbitrary<string> | undefined {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return undefined;
  }
}
