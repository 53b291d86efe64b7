import { describe, expect, it } from '@jest/globals';
import { describeType, type OpenApiDocument, prose, renderOpenApiPages } from './render-openapi.js';
import { managerOpenApi } from './service-documents.js';

const target = { basePath: '/api/manager-reference' };

describe("the Manager API reference, rendered from the manager's own document", () => {
  const document = managerOpenApi();
  const pages = renderOpenApiPages(document, target);
  const all = pages.map((page) => page.markdown).join('\n');

  it('has a section for every operation the document holds, under its method and path', () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `\`${method.toUpperCase()} ${path}\``),
    );
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((operation) => !all.includes(operation))).toEqual([]);
  });

  it('gives each operation its parameters, request body fields and responses', () => {
    const agents = pages.find((page) => page.slug === 'agents')?.markdown ?? '';
    const getAgent = agents.slice(agents.indexOf('`GET /api/v1/agents/{id}`'));
    expect(getAgent).toMatch(/^\| `id` \| path \| yes \| string \(uuid\) \|/m);
    expect(getAgent).toMatch(/^\| `x-workspace-id` \| header \| no \|/m);
    expect(getAgent).toContain('- **404**: No agent with this id in the workspace');
    expect(getAgent).toContain('[Agent](/api/manager-reference/schemas#agent)');
    expect(all).toContain('**Request body** (required)');
  });

  it('renders the named schemas on a page of their own, each field with its type', () => {
    const schemas = pages.find((page) => page.slug === 'schemas')?.markdown ?? '';
    for (const name of Object.keys(document.components?.schemas ?? {})) expect(schemas).toContain(`\n## ${name}\n`);
    expect(schemas).toMatch(/^\| `name` \| string \| yes \|/m);
  });
});

describe('describeType and prose', () => {
  it('say what a schema is in one line', () => {
    expect(describeType({ type: 'array', items: { $ref: '#/components/schemas/Agent' } }, target)).toBe(
      'array of [Agent](/api/manager-reference/schemas#agent)',
    );
    expect(describeType({ enum: ['hour', 'day'] }, target)).toBe('`"hour"` \\| `"day"`');
    expect(describeType({ anyOf: [{ type: 'string' }, { type: 'null' }] }, target)).toBe('string or null');
    expect(describeType({ type: 'object', additionalProperties: { type: 'string' } }, target)).toBe('map of string');
  });

  it('keep angle brackets out of the page as HTML, but not inside code', () => {
    expect(prose('at <pool URL>/agents/`<agent id>`')).toBe('at &lt;pool URL&gt;/agents/`<agent id>`');
  });

  it('title a page by its tag and name the document it came from', () => {
    const minimal: OpenApiDocument = {
      info: { title: 'T', version: '1' },
      paths: {
        '/x': { get: { summary: 'Read x', tags: ['engine-pools'], responses: { 200: { description: 'ok' } } } },
      },
    };
    const [page] = renderOpenApiPages(minimal, target);
    expect(page?.slug).toBe('engine-pools');
    expect(page?.title).toBe('Engine pools');
    expect(page?.markdown).toContain('Generated from the OpenAPI document "T" 1');
    expect(page?.markdown).toContain('## Read x\n\n`GET /x`');
  });
});
