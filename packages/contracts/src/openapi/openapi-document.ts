// Builds the OpenAPI 3.1 document from the route descriptions the manager registers, so the
// document, request validation and tests all come from the same zod schemas.
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { JSON_BODY_MAX_BYTES, JSON_MAX_DEPTH } from '../common/limits.js';
import { ZProblem } from '../common/problem.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type OpenApiResponse = {
  description: string;
  schema?: z.ZodType;
  /** Response headers, e.g. X-Total-Count on lists. */
  headers?: z.ZodObject;
};

export type OpenApiRoute = {
  method: HttpMethod;
  /** OpenAPI path with `{param}` placeholders, including the /api/v1 prefix. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Whether the session cookie is required. */
  authenticated: boolean;
  /** Whether the route acts in the workspace chosen by the x-workspace-id header. */
  workspaceScoped: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success responses; the problem responses are added from what the route validates. */
  responses: Record<number, OpenApiResponse>;
  /** Extra problem statuses the handler itself can answer (404, 409, 429…). */
  problems?: Record<number, string>;
};

export const SESSION_COOKIE_SCHEME = 'sessionCookie';

const ZWorkspaceHeader = z.strictObject({
  'x-workspace-id': z.uuid().optional().meta({
    description: "The workspace to act in; the caller's default workspace when absent.",
  }),
});

function problem(description: string): ResponseConfig {
  return { description, content: { 'application/problem+json': { schema: ZProblem } } };
}

function toResponseConfig(response: OpenApiResponse): ResponseConfig {
  return {
    description: response.description,
    ...(response.headers ? { headers: response.headers } : {}),
    ...(response.schema ? { content: { 'application/json': { schema: response.schema } } } : {}),
  };
}

const UNSTORABLE =
  `a NUL character, a lone UTF-16 surrogate or a "__proto__" key anywhere, or nesting deeper than ${JSON_MAX_DEPTH}; ` +
  '`errors` names the path';

// Every request passes the same gates before its route does: whatever the operation, a body that is sent
// must be JSON (415), well-formed (400), within the byte limit (413) and storable (422).
function problemResponses(route: OpenApiRoute): Record<number, ResponseConfig> {
  const malformed = [
    'Malformed JSON body, or a NUL in the query string',
    ...(route.params ? ['a path id that is not a UUID or not percent-encoded UTF-8'] : []),
    ...(route.query ? ['a bad query parameter'] : []),
    ...(route.workspaceScoped ? ['an x-workspace-id that is not a UUID'] : []),
  ];
  const problems: Record<number, string> = {
    400: malformed.join('; '),
    413: `Body larger than ${JSON_BODY_MAX_BYTES / 1024 / 1024} MiB`,
    415: 'A body that is not application/json',
    422: route.body
      ? `Body failed validation (\`errors\` names each field), or holds ${UNSTORABLE}`
      : `A body was sent (this operation reads none) that holds ${UNSTORABLE}`,
  };
  if (route.authenticated) problems[401] = 'No valid session';
  if (route.workspaceScoped) problems[403] = 'Not a member of the workspace, or the role is too low';
  Object.assign(problems, route.problems);
  return Object.fromEntries(Object.entries(problems).map(([status, text]) => [status, problem(text)]));
}

function toRouteConfig(route: OpenApiRoute): RouteConfig {
  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.authenticated ? { security: [{ [SESSION_COOKIE_SCHEME]: [] }] } : {}),
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.workspaceScoped ? { headers: ZWorkspaceHeader } : {}),
      ...(route.body ? { body: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    },
    responses: {
      ...Object.fromEntries(
        Object.entries(route.responses).map(([status, response]) => [status, toResponseConfig(response)]),
      ),
      ...problemResponses(route),
    },
  };
}

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export function createOpenApiDocument(
  routes: OpenApiRoute[],
  info: { title: string; version: string },
  options: { sessionCookie?: string } = {},
): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SESSION_COOKIE_SCHEME, {
    type: 'apiKey',
    in: 'cookie',
    name: options.sessionCookie ?? 'sid',
    description:
      'The signed session cookie set by /api/v1/auth/signup and /api/v1/auth/login: `__Host-sid` when the ' +
      'manager marks its cookie Secure (HTTPS: in production, or with COOKIE_SECURE=true), `sid` otherwise.',
  });
  for (const route of routes) registry.registerPath(toRouteConfig(route));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { ...info, description: 'The Agentplane control plane.' },
    servers: [{ url: '/' }],
  });
}
