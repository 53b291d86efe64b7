// Markdown pages rendered from an OpenAPI 3.1 document: one page per tag, one section per operation
// (method, path, summary, parameters, request body, responses), and one page of the named schemas.
// Nothing is retyped: every word and type comes from the document the service builds from its routes.

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  default?: unknown;
};
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Content = Record<string, { schema?: Schema }>;
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required?: boolean; description?: string; content?: Content };
  responses?: Record<string, { description?: string; content?: Content }>;
};
export type OpenApiDocument = {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
};

/** Where the rendered pages live: their slug, and the site path the links between them use. */
export type RenderTarget = { basePath: string };
export type RenderedPage = { slug: string; title: string; markdown: string };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const SCHEMAS_SLUG = 'schemas';

function refName(ref: string): string {
  return ref.split('/').at(-1) as string;
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** One line saying what a schema is: `string (uuid)`, `array of Agent`, `"a" | "b"`. */
export function describeType(schema: Schema | undefined, target: RenderTarget): string {
  if (schema === undefined) return 'any';
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return `[${name}](${target.basePath}/${SCHEMAS_SLUG}#${slugify(name)})`;
  }
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' \\| ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((member) => describeType(member, target)).join(' or ');
  if (schema.allOf) return schema.allOf.map((member) => describeType(member, target)).join(' and ');
  const types = ([] as string[]).concat(schema.type ?? []);
  if (types.includes('array')) return `array of ${describeType(schema.items, target)}`;
  if (types.includes('object') && schema.properties === undefined) {
    const values = schema.additionalProperties;
    return typeof values === 'object' ? `map of ${describeType(values, target)}` : 'object';
  }
  const base = types.length > 0 ? types.join(' or ') : 'any';
  return schema.format ? `${base} (${schema.format})` : base;
}

function limits(schema: Schema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined && schema.minLength > 0) parts.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) parts.push(`at most ${schema.maxLength} characters`);
  if (schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  if (schema.default !== undefined) parts.push(`default \`${JSON.stringify(schema.default)}\``);
  return parts.join(', ');
}

/** Prose from the document as Markdown text: angle brackets outside code spans are not HTML tags. */
export function prose(text: string | undefined): string {
  return (text ?? '')
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part : part.replaceAll('<', '&lt;').replaceAll('>', '&gt;')))
    .join('');
}

function cell(text: string | undefined): string {
  return prose(text)
    .replace(/\s*\n\s*/g, ' ')
    .replaceAll('|', '\\|');
}

/** The fields of an object schema as a table; other schemas as their one-line type. */
export function renderSchema(schema: Schema | undefined, target: RenderTarget): string {
  const properties = schema?.properties;
  if (schema === undefined || properties === undefined) return `Type: ${describeType(schema, target)}`;
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(properties).map(([name, field]) => {
    const notes = [field.description, limits(field)].filter(Boolean).join('; ');
    return `| \`${name}\` | ${cell(describeType(field, target))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(notes)} |`;
  });
  return ['| Field | Type | Required | Notes |', '|---|---|---|---|', ...rows].join('\n');
}

function resolveParameter(parameter: Parameter | { $ref: string }, document: OpenApiDocument): Parameter {
  if ('$ref' in parameter) return document.components?.parameters?.[refName(parameter.$ref)] as Parameter;
  return parameter;
}

function renderParameters(operation: Operation, document: OpenApiDocument, target: RenderTarget): string[] {
  const parameters = (operation.parameters ?? []).map((parameter) => resolveParameter(parameter, document));
  if (parameters.length === 0) return [];
  const rows = parameters.map(
    (parameter) =>
      `| \`${parameter.name}\` | ${parameter.in} | ${parameter.required ? 'yes' : 'no'} | ${cell(describeType(parameter.schema, target))} | ${cell(parameter.description)} |`,
  );
  return ['**Parameters**', '', '| Name | In | Required | Type | Description |', '|---|---|---|---|---|', ...rows, ''];
}

function renderContent(content: Content | undefined, target: RenderTarget): string[] {
  return Object.entries(content ?? {}).flatMap(([mediaType, { schema }]) => [
    `\`${mediaType}\``,
    '',
    renderSchema(schema, target),
    '',
  ]);
}

function renderOperation(
  method: string,
  path: string,
  operation: Operation,
  document: OpenApiDocument,
  target: RenderTarget,
): string {
  const access = operation.security?.length ? Object.keys(operation.security[0] ?? {}).join(', ') : 'none';
  const lines = [
    `## ${prose(operation.summary) || `${method.toUpperCase()} ${path}`}`,
    '',
    `\`${method.toUpperCase()} ${path}\``,
    '',
    ...(operation.description ? [prose(operation.description), ''] : []),
    `Operation id: \`${operation.operationId ?? '—'}\`. Authentication: ${access}.`,
    '',
    ...renderParameters(operation, document, target),
  ];
  if (operation.requestBody) {
    lines.push(`**Request body**${operation.requestBody.required ? ' (required)' : ''}`, '');
    if (operation.requestBody.description) lines.push(prose(operation.requestBody.description), '');
    lines.push(...renderContent(operation.requestBody.content, target));
  }
  lines.push('**Responses**', '');
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    lines.push(`- **${status}**: ${cell(response.description)}`);
    const success = status.startsWith('2');
    // Errors all carry the same problem+json body, named in the schemas page; success bodies are shown.
    if (success && response.content) lines.push('', ...renderContent(response.content, target));
  }
  return lines.join('\n');
}

/** The document's operations grouped by their first tag, in the document's order. */
function operationsByTag(document: OpenApiDocument): Map<string, [string, string, Operation][]> {
  const byTag = new Map<string, [string, string, Operation][]>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const tag = operation.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), [method, path, operation]]);
    }
  }
  return byTag;
}

function titleOf(tag: string): string {
  const words = tag.replace(/[-_]/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function renderOpenApiPages(document: OpenApiDocument, target: RenderTarget): RenderedPage[] {
  const note = `<!-- Generated from the OpenAPI document "${document.info.title}" ${document.info.version} at build time; do not edit. -->`;
  const pages = [...operationsByTag(document)].map(([tag, operations]) => ({
    slug: slugify(tag),
    title: titleOf(tag),
    markdown: [
      `# ${document.info.title}: ${titleOf(tag)}`,
      note,
      ...operations.map(([method, path, operation]) => renderOperation(method, path, operation, document, target)),
    ].join('\n\n'),
  }));
  const schemas = Object.entries(document.components?.schemas ?? {}).map(
    ([name, schema]) =>
      `## ${name}\n\n${schema.description ? `${cell(schema.description)}\n\n` : ''}${renderSchema(schema, target)}`,
  );
  pages.push({
    slug: SCHEMAS_SLUG,
    title: 'Schemas',
    markdown: [`# ${document.info.title}: schemas`, note, ...schemas].join('\n\n'),
  });
  return pages.map((page) => ({ ...page, markdown: `${page.markdown}\n` }));
}
