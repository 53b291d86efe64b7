// Arguments a person edits for a tool call needing approval, read as the engine will check them: a
// JSON object, and where the interrupt's responseSchema says so simply (`required`, each property's
// `type`, `additionalProperties: false`), of the tool's shape. The engine's own check (its 422) still decides the rest.
type Schema = {
  type?: unknown;
  required?: unknown;
  properties?: Record<string, { type?: unknown }>;
  additionalProperties?: unknown;
};

const typeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

function fits(value: unknown, type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  if (typeof type !== 'string' && !Array.isArray(type)) return true;
  const actual = typeOf(value);
  return types.some((wanted) => wanted === actual || (wanted === 'number' && actual === 'integer'));
}

/** The schema edited arguments must satisfy, from a tool_approval interrupt's responseSchema. */
export function editedArgsSchema(responseSchema: unknown): Schema | undefined {
  const properties = (responseSchema as { properties?: { editedArgs?: Schema } } | undefined)?.properties;
  return properties?.editedArgs;
}

export function readEditedArguments(
  text: string,
  schema: Schema | undefined,
): { args: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: 'The arguments are not JSON.' };
  }
  if (typeOf(value) !== 'object') return { problem: 'The arguments must be a JSON object.' };
  const args = value as Record<string, unknown>;
  const required = Array.isArray(schema?.required) ? schema.required : [];
  const missing = required.find((name) => typeof name === 'string' && !(name in args));
  if (missing !== undefined) return { problem: `The argument "${missing}" is required.` };
  const unknown = Object.keys(args).find((name) => !(name in (schema?.properties ?? {})));
  if (schema?.additionalProperties === false && unknown !== undefined) {
    return { problem: `The tool takes no argument "${unknown}".` };
  }
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (name in args && !fits(args[name], property?.type)) {
      return { problem: `The argument "${name}" must be of type ${JSON.stringify(property.type)}.` };
    }
  }
  return { args };
}
