// The configuration reference page, rendered from each service's environment schema (names, defaults) and
// the docs kept beside it (meanings), and the checks that keep the two in step.
import type { DocumentedEnv, EnvVarDoc } from '@agentplane/server-kit';

type ZodInternals = { _zod: { def: { type: string; defaultValue?: unknown } } };

/** What applies when the variable is unset, as the schema says it: a value, nothing, or a required one. */
export type SchemaDefault = { kind: 'value'; value: string } | { kind: 'none' } | { kind: 'required' };

export function schemaDefault(field: unknown): SchemaDefault {
  const { def } = (field as ZodInternals)._zod;
  if (def.type === 'default') return { kind: 'value', value: String(def.defaultValue) };
  if (def.type === 'optional') return { kind: 'none' };
  return { kind: 'required' };
}

/** Every way the docs and the schema of one service disagree; empty when they agree. */
export function envDocProblems({ service, schema, docs }: DocumentedEnv): string[] {
  const problems: string[] = [];
  for (const [name, field] of Object.entries(schema.shape)) {
    const doc = docs[name];
    if (doc === undefined || doc.description.trim() === '') {
      problems.push(`${service}: ${name} is in the environment schema but has no description`);
      continue;
    }
    const fallback = schemaDefault(field);
    if (fallback.kind === 'value' && doc.default !== undefined && !doc.default.includes(fallback.value)) {
      problems.push(
        `${service}: ${name}'s documented default "${doc.default}" does not quote the schema's default ${fallback.value}`,
      );
    }
  }
  for (const name of Object.keys(docs)) {
    if (!Object.hasOwn(schema.shape, name)) problems.push(`${service}: ${name} is documented but not in the schema`);
  }
  return problems;
}

function defaultCell(field: unknown, doc: EnvVarDoc | undefined): string {
  if (doc?.default !== undefined) return doc.default;
  const fallback = schemaDefault(field);
  if (fallback.kind === 'value') return `\`${fallback.value}\``;
  return fallback.kind;
}

/** A table cell: one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');
}

function serviceSection({ service, schema, docs }: DocumentedEnv): string {
  const rows = Object.entries(schema.shape).map(([name, field]) => {
    // An undocumented variable still gets its row, so that the page's diff shows what is missing.
    const doc = docs[name];
    return `| \`${name}\` | ${cell(defaultCell(field, doc))} | ${cell(doc?.description ?? '(undocumented)')} |`;
  });
  const title = service.charAt(0).toUpperCase() + service.slice(1);
  return [`## ${title}`, '', '| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

export const CONFIG_REFERENCE_HEADER = `# Configuration

<!-- Generated from the services' environment schemas by \`pnpm --filter @agentplane/docs config-reference\`;
edit the docs beside each schema (apps/manager/src/config-docs.ts, apps/engine/src/env-docs.ts,
apps/launcher/src/launcher-env.ts), not this page. -->

Every service reads its environment once at start-up and stops with a message naming any variable that
is missing or invalid. This page is generated from each service's own schema, so a variable cannot be
added without its entry here: a test fails when they disagree. The launcher's own settings close the
page; the other variables of \`pnpm start\`, the tests and the benchmarks are on [their own
page](./other-variables).`;

export function renderConfigReference(envs: DocumentedEnv[]): string {
  return `${[CONFIG_REFERENCE_HEADER, ...envs.map(serviceSection)].join('\n\n')}\n`;
}
