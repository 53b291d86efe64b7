// Builds an OpenAPI 3.1 document from the route descriptions a service registers (the manager's, an
// engine's), so the document, request validation and tests all come from the same zod schemas.
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ZProblem } from '../common/problem.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type OpenApiResponse = {
  description: string;
  schema?: z.ZodType;
  /** The media type of `schema`; application/json unless said otherwise (an event stream, plain text). */
  contentType?: string;
  /** Response headers, e.g. X-Total-Count on lists. */
  headers?: z.ZodObject;
};

export type OpenApiRoute = {
  method: HttpMethod;
  /** OpenAPI path with `{param}` placeholders, including the service's prefix (the manager's /api/v1). */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Whether the service's credential (the manager's session cookie, an engine's bearer token) is required. */
  authenticated: boolean;
  /** Whether the route acts in the workspace chosen by the x-workspace-id header. */
  workspaceScoped: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body's media type; application/json unless said otherwise. */
  bodyContentType?: string;
  /** Success responses; the problem responses are added from what the route validates. */
  responses: Record<number, OpenApiResponse>;
  /** Extra problem statuses the handler itself can answer (404, 409, 429…). */
  problems?: Record<number, string>;
};

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
    ...(response.schema
      ? { content: { [response.contentType ?? 'application/json']: { schema: response.schema } } }
      : {}),
  };
}

/** An OpenAPI security scheme: a cookie or header key, or an HTTP scheme such as bearer. */
export type SecuritySchemeObject =
  | { type: 'apiKey'; in: 'cookie' | 'header' | 'query'; name: string; description: string }
  | { type: 'http'; scheme: string; bearerFormat?: string; description: string };

export type OpenApiDocumentOptions = {
  info: { title: string; version: string; description: string };
  /** The credential of authenticated routes: its component name and scheme, and what its 401 says. */
  security: { name: string; scheme: SecuritySchemeObject; unauthorized: string };
  /** The problems a route can answer before it runs, from the gates every request passes on this service. */
  gateProblems: (route: OpenApiRoute) => Record<number, string>;
  /** Where the paths are served; the origin's root unless said otherwise. */
  servers?: { url: string }[];
};

function problemResponses(route: OpenApiRoute, options: OpenApiDocumentOptions): Record<number, ResponseConfig> {
  const problems: Record<number, string> = options.gateProblems(route);
  if (route.authenticated) problems[401] = options.security.unauthorized;
  Object.assign(problems, route.problems);
  return Object.fromEntries(Object.entries(problems).map(([status, text]) => [status, problem(text)]));
}

function toRouteConfig(route: OpenApiRoute, options: OpenApiDocumentOptions): RouteConfig {
  return {
    method: route.method,
    path: route.path,
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.authenticated ? { security: [{ [options.security.name]: [] }] } : {}),
    request: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { query: route.query } : {}),
      ...(route.workspaceScoped ? { headers: ZWorkspaceHeader } : {}),
      ...(route.body
        ? {
            body: {
              required: true,
              content: { [route.bodyContentType ?? 'application/json']: { schema: route.body } },
            },
          }
        : {}),
    },
    responses: {
      ...Object.fromEntries(
        Object.entries(route.responses).map(([status, response]) => [status, toResponseConfig(response)]),
      ),
      ...problemResponses(route, options),
    },
  };
}

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export function createOpenApiDocument(routes: OpenApiRoute[], options: OpenApiDocumentOptions): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', options.security.name, options.security.scheme);
  for (const route of routes) registry.registerPath(toRouteConfig(route, options));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: options.info,
    servers: options.servers ?? [{ url: '/' }],
  });
}
