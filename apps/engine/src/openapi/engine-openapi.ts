// The engine's OpenAPI document: the API of one agent, whose paths are the same at a dedicated engine's
// root and under /agents/{agentId} on a pool. Built from the route specs alone, so the docs can render it
// without a running engine.
import { createOpenApiDocument, type OpenApiDocument, type OpenApiRoute } from '@agentplane/contracts';
import { OPENAPI_DOCUMENT_ROUTE, toOpenApiRoute } from '@agentplane/server-kit';
import { A2A_ROUTES } from '../a2a/a2a-router.js';
import { CHANNEL_ROUTES } from '../channels/channel-router.js';
import { HEALTH_ROUTES } from '../health/health-router.js';
import { BEARER_SCHEME, describeEngineAccess, type EngineApi, type EngineRouteSpec } from '../http/engine-api.js';
import { INFO_ROUTES } from '../info/info-router.js';
import { MCP_ROUTES } from '../mcp-server/mcp-routes.js';
import { RUN_ROUTES } from '../runs/run-router.js';
import { THREAD_ROUTES } from '../threads/thread-router.js';
import { WHATSAPP_ROUTES } from '../whatsapp/whatsapp-router.js';

export const OPENAPI_ROUTES = { document: OPENAPI_DOCUMENT_ROUTE } satisfies Record<string, EngineRouteSpec>;

const SPECS: EngineRouteSpec[] = [
  INFO_ROUTES,
  HEALTH_ROUTES,
  RUN_ROUTES,
  THREAD_ROUTES,
  MCP_ROUTES,
  WHATSAPP_ROUTES,
  CHANNEL_ROUTES,
  A2A_ROUTES,
  OPENAPI_ROUTES,
].flatMap((routes) => Object.values(routes));

// Before any route runs, the query string is checked for what cannot be stored; a path or query that
// does not fit its route's schema is a 400 too.
function gateProblems(route: OpenApiRoute): Record<number, string> {
  const malformed = [
    'A NUL character, a lone UTF-16 surrogate or a "__proto__" key in the query string',
    ...(route.params ? ['a path id that breaks the AG-UI id rule'] : []),
    ...(route.query ? ['a bad query parameter'] : []),
  ];
  return { 400: malformed.join('; ') };
}

/**
 * The document of every engine route. `basePath` is where the agent's API is served: `/` on a dedicated
 * engine, `/agents/{agentId}` on a pool.
 */
export function buildEngineOpenApi(basePath = '/'): OpenApiDocument {
  return createOpenApiDocument(
    SPECS.map((spec) => toOpenApiRoute(spec, { describeAccess: describeEngineAccess })),
    {
      info: {
        title: 'Agentplane Engine API',
        version: '1.0.0',
        description:
          "The API of one agent: AG-UI runs and their records, the caller's threads, the agent as an MCP server, " +
          "the agent's health and capabilities, and the channels' webhooks. A dedicated engine serves it at its root; a pool serves " +
          'each of its agents under /agents/{agentId} (404 for an agent it does not serve).',
      },
      security: {
        name: BEARER_SCHEME,
        scheme: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A token the manager mints for the agent (POST /api/v1/agents/{id}/token), or one signed by the ' +
            "OIDC issuer of the agent's auth settings. A refused token is answered with WWW-Authenticate.",
        },
        unauthorized: 'No bearer token, or one the agent does not accept (WWW-Authenticate says why)',
      },
      gateProblems,
      servers: [{ url: basePath }],
    },
  );
}

export function addOpenApiRoutes(api: EngineApi): void {
  const documents = new Map<string, OpenApiDocument>();
  api.add(OPENAPI_ROUTES.document, (_input, req, res) => {
    // The served agent's base: '' at a dedicated engine's root, /agents/{agentId} on a pool.
    const basePath = req.baseUrl === '' ? '/' : req.baseUrl;
    let document = documents.get(basePath);
    if (document === undefined) {
      document = buildEngineOpenApi(basePath);
      documents.set(basePath, document);
    }
    res.json(document);
  });
}
