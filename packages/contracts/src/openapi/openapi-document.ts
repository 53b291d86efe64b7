// Builds the OpenAPI 3.1 document from the route descriptions the manager registers, so the
// document, request validation and tests all come from the same zod schemas.
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

function problemResponses(route: OpenApiRoute): Record<number, ResponseConfig> {
  const problems: Record<number, string> = {};
  if (route.params || route.query || route.workspaceScoped) problems[400] = 'Malformed path, query or header';
  if (route.authenticated) problems[401] = 'No valid session';
  if (route.workspaceScoped) problems[403] = 'Not a member of the workspace, or the role is too low';
  if (route.body) {
    problems[413] = 'Body larger than 1 MiB';
    problems[415] = 'Body is not application/json';
    problems[422] = 'Body failed validation; `errors` names each field';
  }
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
