// The engine's OpenAPI document against a real dedicated engine in database mode (every route there):
// valid OpenAPI 3.1, public, and naming every route the agent's router serves, and nothing it does not.
import { createTestDatabase, makeAgent, makeWorkspace, type TestDatabase } from '@agentplane/db/testing';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { validate } from '@readme/openapi-parser';
import type { Router } from 'express';
import type { RunningEngine } from '../start-engine.js';
import { writeConfigRow } from '../testing/engine-config-rows.js';
import { makeLlmEngineConfig } from '../testing/engine-configs.js';
import { startDatabaseEngine } from '../testing/test-engine.js';
import { buildEngineOpenApi } from './engine-openapi.js';

type Document = { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };
type Layer = {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
};

let database: TestDatabase;
let engine: RunningEngine;

beforeAll(async () => {
  database = await createTestDatabase();
  const workspaceId = (await makeWorkspace(database.prisma)).id;
  const row = { agentId: (await makeAgent(database.prisma, workspaceId)).id, workspaceId };
  await writeConfigRow(database.prisma, row, 1, makeLlmEngineConfig(row));
  // Tokens are required (no ENGINE_AUTH=disabled): the document is served without one all the same. The
  // issuer is never asked: a request without a token is refused before any key is looked up.
  engine = await startDatabaseEngine(database, row.agentId, {
    ENGINE_AUTH: 'oidc',
    ENGINE_OIDC_ISSUER: 'https://issuer.invalid',
    ENGINE_OIDC_AUDIENCE: 'agentplane',
  });
  await waitUntil(() => engine.routers().length === 1, { what: 'the dedicated engine loaded its agent' });
});

afterAll(async () => {
  await engine?.shutdown();
  await database?.drop();
});

/** Every method and path a router serves, its nested routers' included, as `get /agent/runs/{runId}`. */
function routesOf(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.handle?.stack !== undefined) return routesOf(layer.handle.stack);
    const { route } = layer;
    if (route === undefined) return [];
    const methods = Object.keys(route.methods).filter((method) => route.methods[method]);
    return ([] as string[])
      .concat(route.path)
      .flatMap((path) => methods.map((method) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`));
  });
}

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => `${method} ${path}`),
  );

describe('GET /openapi.json', () => {
  it('is served without a token, while the agent API asks for one', async () => {
    expect((await fetch(`${engine.url}/agent/config`)).status).toBe(401);
    const response = await fetch(`${engine.url}/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as Document;
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: '/' }]);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const document = await (await fetch(`${engine.url}/openapi.json`)).json();
    const result = await validate(document as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("documents every route the agent's router serves, and none it does not", async () => {
    const [router] = engine.routers() as (Router & { stack: Layer[] })[];
    const served = routesOf(router?.stack ?? []).sort();
    const documented = operationsOf((await (await fetch(`${engine.url}/openapi.json`)).json()) as Document).sort();
    expect(served.length).toBeGreaterThanOrEqual(16);
    expect(documented).toEqual(served);
  });
});

describe('buildEngineOpenApi', () => {
  it('builds the same document without an engine, for the base path it is given', async () => {
    const served = (await (await fetch(`${engine.url}/openapi.json`)).json()) as Document;
    expect(buildEngineOpenApi()).toEqual(served);
    const pooled = buildEngineOpenApi('/agents/{agentId}') as unknown as Document;
    expect(pooled.servers).toEqual([{ url: '/agents/{agentId}' }]);
    expect(operationsOf(pooled)).toEqual(operationsOf(served));
  });

  it('says which operations need the bearer token, and documents their 401', () => {
    const document = buildEngineOpenApi() as unknown as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(document.components.securitySchemes).toEqual({
      bearerToken: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    const run = document.paths['/agent/run']?.post;
    expect(run?.security).toEqual([{ bearerToken: [] }]);
    expect(Object.keys(run?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401', '413', '415', '422']));
    for (const path of ['/health', '/', '/openapi.json', '/integrations/whatsapp/webhook']) {
      for (const operation of Object.values(document.paths[path] ?? {})) expect(operation.security).toBeUndefined();
    }
  });
});
