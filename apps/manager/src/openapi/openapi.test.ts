import {
  MCP_ARG_MAX_LENGTH,
  MCP_ARGS_MAX_ITEMS,
  MCP_MAP_MAX_ENTRIES,
  SESSION_KWARGS_MAX_BYTES,
  URL_MAX_LENGTH,
} from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { validate } from '@readme/openapi-parser';
import request from 'supertest';
import { API_PREFIX } from '../http/api-router.js';
import { type ManagerTestContext, startManagerTestApp } from '../testing/manager-test-app.js';

type RouteLayer = { route?: { path: string | string[]; methods: Record<string, boolean> } };

let ctx: ManagerTestContext;
let document: { paths: Record<string, Record<string, unknown>>; components?: Record<string, unknown> };
beforeAll(async () => {
  ctx = await startManagerTestApp();
  document = (await request(ctx.app).get('/api/v1/openapi.json')).body;
});
afterAll(() => ctx?.close());

/** Every method and path Express actually routes under /api/v1, read from the router itself. */
function expressRoutes(): string[] {
  const stack = (ctx.app.apiRouter as unknown as { stack: RouteLayer[] }).stack;
  return stack.flatMap((layer) => {
    if (!layer.route) return [];
    const paths = ([] as string[]).concat(layer.route.path);
    const methods = Object.keys(layer.route.methods).filter((method) => layer.route?.methods[method]);
    return paths.flatMap((path) =>
      methods.map((method) => `${method} ${API_PREFIX}${path.replace(/:(\w+)/g, '{$1}')}`),
    );
  });
}

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect((document as unknown as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('documents every route the server registers', () => {
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method} ${path}`),
      ),
    );
    const routes = expressRoutes();
    expect(routes.length).toBeGreaterThan(10);
    expect(routes.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('declares the cookie security scheme and the x-workspace-id header', () => {
    expect(document.components?.securitySchemes).toEqual({
      sessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'sid' }),
    });
    const me = document.paths['/api/v1/auth/me']?.get as { security?: unknown };
    expect(me.security).toEqual([{ sessionCookie: [] }]);
  });

  it('serves an interactive reference at /api/v1/docs', async () => {
    const page = await request(ctx.app).get('/api/v1/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui');
    const init = await request(ctx.app).get('/api/v1/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/api/v1/openapi.json');
  });
});

describe('problems and limits', () => {
  type Operation = { responses: Record<string, unknown>; requestBody?: unknown };
  const operations = () =>
    Object.entries(document.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod as Record<string, Operation>).map(([method, operation]) => ({ path, method, operation })),
    );

  it('documents 400, 413 and 415 on every operation, and 422 on every one that takes a body', () => {
    const missing = operations().flatMap(({ path, method, operation }) =>
      ['400', '413', '415', ...(operation.requestBody ? ['422'] : [])]
        .filter((status) => !(status in operation.responses))
        .map((status) => `${method} ${path} ${status}`),
    );
    expect(missing).toEqual([]);
  });

  it('states the bounds of what a tenant stores', () => {
    const schemas = document.components?.schemas as Record<
      string,
      { properties: Record<string, Record<string, unknown>> }
    >;
    const mcp = schemas.MCPServer?.properties ?? {};
    expect(mcp.args).toMatchObject({ maxItems: MCP_ARGS_MAX_ITEMS, items: { maxLength: MCP_ARG_MAX_LENGTH } });
    expect(mcp.headers).toMatchObject({ maxProperties: MCP_MAP_MAX_ENTRIES });
    expect(mcp.env).toMatchObject({ maxProperties: MCP_MAP_MAX_ENTRIES });
    expect(mcp.url).toMatchObject({ maxLength: URL_MAX_LENGTH });
    expect(String(mcp.sessionKwargs?.description)).toContain(`${SESSION_KWARGS_MAX_BYTES} bytes`);
  });

  it('documents the guardrail routes, what agent_count counts of them, and why a delete is refused', () => {
    type Described = { responses: Record<string, { description: string }> };
    const at = (path: string, method: string) => document.paths[path]?.[method] as Described | undefined;
    for (const method of ['get', 'post']) expect(at('/api/v1/guardrails/', method)).toBeDefined();
    for (const method of ['get', 'patch', 'delete']) expect(at('/api/v1/guardrails/{id}', method)).toBeDefined();
    expect(at('/api/v1/guardrails/{id}', 'get')?.responses['200']?.description).toContain('default_guardrail_ids');
    expect(at('/api/v1/guardrails/{id}', 'delete')?.responses['409']?.description).toContain('default guardrails');
    const update = document.paths['/api/v1/workspaces/{id}']?.patch as { responses: Record<string, unknown> };
    expect(JSON.stringify(update)).toContain('default_guardrail_ids');
  });

  it('documents the engine-config route and the include parameter of agent lists', () => {
    expect(document.paths['/api/v1/agents/{id}/engine-config']?.get).toBeDefined();
    const list = document.paths['/api/v1/agents/']?.get as { parameters: { name: string }[] };
    expect(list.parameters.map((parameter) => parameter.name)).toContain('include');
  });
});

describe('examples', () => {
  it('gives every resource create and update body an example that its own schema accepts', async () => {
    const { ZAgentCreate, ZGuardrailCreate, ZIntegrationCreate, ZMcpServerCreate, ZObservabilityCreate, ZSsoCreate } =
      await import('@agentplane/contracts');
    const schemas = (document.components?.schemas ?? {}) as Record<string, { examples?: unknown[] }>;
    const pairs = [
      ['IntegrationCreate', ZIntegrationCreate],
      ['McpServerCreate', ZMcpServerCreate],
      ['SsoCreate', ZSsoCreate],
      ['ObservabilityCreate', ZObservabilityCreate],
      ['AgentCreate', ZAgentCreate],
      ['GuardrailCreate', ZGuardrailCreate],
    ] as const;
    for (const [name, schema] of pairs) {
      const examples = schemas[name]?.examples ?? [];
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) expect(schema.safeParse(example).success).toBe(true);
    }
    for (const name of [
      'IntegrationUpdate',
      'McpServerUpdate',
      'SsoUpdate',
      'ObservabilityUpdate',
      'AgentUpdate',
      'GuardrailUpdate',
    ]) {
      expect(schemas[name]?.examples?.length).toBeGreaterThan(0);
    }
  });
});

describe('secret masking', () => {
  type Parameter = { name: string; in: string; description?: string; schema?: unknown };
  const operation = (path: string, method: string) =>
    document.paths[path]?.[method] as { parameters?: Parameter[] } | undefined;

  it('offers ?secrets=masked, described, on every read and write of the resources and agents', () => {
    for (const segment of ['integrations', 'mcp-servers', 'observability', 'agents']) {
      const operations = [
        operation(`/api/v1/${segment}/`, 'get'),
        operation(`/api/v1/${segment}/`, 'post'),
        operation(`/api/v1/${segment}/{id}`, 'get'),
        operation(`/api/v1/${segment}/{id}`, 'patch'),
      ];
      for (const found of operations) {
        const secrets = found?.parameters?.find((parameter) => parameter.name === 'secrets');
        expect(secrets).toMatchObject({ in: 'query', description: expect.stringContaining('masked') });
      }
    }
  });

  it('says of every secret field how it is masked and kept', () => {
    type Schema = { description?: string; properties?: Record<string, Schema> };
    const schemas = document.components?.schemas as Record<string, Schema>;
    const descriptionAt = (schema: string, ...path: string[]) =>
      path.reduce<Schema | undefined>((at, key) => at?.properties?.[key], schemas[schema])?.description;
    const fields = [
      ['WhatsAppConfig', 'accessToken'],
      ['WhatsAppConfig', 'verifyToken'],
      ['WhatsAppConfig', 'appSecret'],
      ['MCPServer', 'headers'],
      ['MCPServer', 'env'],
      ['LlmAgentConfig', 'model', 'apiKey'],
    ] as const;
    for (const [schema, ...path] of fields) {
      expect(descriptionAt(schema, ...path)).toContain(
        'Sending the masked value back unchanged keeps the stored secret',
      );
    }
  });
});
