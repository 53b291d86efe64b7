// One declaration per route drives its access check, its input validation and its OpenAPI entry,
// so the served document cannot drift from what the server does.
import {
  formatZodIssues,
  type HttpMethod,
  type OpenApiResponse,
  type OpenApiRoute,
  type TRole,
} from '@agentplane/contracts';
import { AppError, type ErrorCode } from '@agentplane/server-kit';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { z } from 'zod';

/**
 * public: anyone. session: a signed-in user. workspace: a member of the x-workspace-id workspace with
 * at least `minRole`. workspace-path: the same for the workspace named by the `:id` path parameter.
 * platform-operator: a signed-in user the operator's CLI made a platform operator, whatever workspaces
 * they are in.
 */
export type Access =
  | { kind: 'public' }
  | { kind: 'session' }
  | { kind: 'workspace'; minRole: TRole }
  | { kind: 'workspace-path'; minRole: TRole }
  | { kind: 'platform-operator' };

export type RouteSpec<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType> = {
  method: HttpMethod;
  /** Express path below /api/v1, e.g. `/workspaces/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, OpenApiResponse>;
  problems?: Record<number, string>;
};

export type RouteInput<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType> = {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
};

export type RouteHandler<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType> = (
  input: RouteInput<P, Q, B>,
  req: Request,
  res: Response,
) => Promise<void> | void;

/** The middleware that turns an Access into checks; the auth and workspace features provide it. */
export type AccessMiddleware = (access: Access) => RequestHandler[];

export const API_PREFIX = '/api/v1';

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, code: ErrorCode, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError(code, `The ${what} is invalid.`, { errors: formatZodIssues(result.error) });
  }
  return result.data;
}

function toOpenApiPath(expressPath: string): string {
  return API_PREFIX + expressPath.replace(/:(\w+)/g, '{$1}');
}

export class ApiRouter {
  readonly router = Router();
  readonly routes: OpenApiRoute[] = [];

  constructor(private readonly accessMiddleware: AccessMiddleware) {}

  add<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType>(
    spec: RouteSpec<P, Q, B>,
    handler: RouteHandler<P, Q, B>,
  ): void {
    const { access } = spec;
    this.routes.push({
      method: spec.method,
      path: toOpenApiPath(spec.path),
      operationId: spec.operationId,
      summary: spec.summary,
      tag: spec.tag,
      authenticated: access.kind !== 'public',
      workspaceScoped: access.kind === 'workspace',
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body ? { body: spec.body } : {}),
      responses: spec.responses,
      ...(spec.problems ? { problems: spec.problems } : {}),
    });
    this.router[spec.method](spec.path, ...this.accessMiddleware(access), async (req, res) => {
      const input = {
        // Path and query errors are the caller's URL being malformed (400); body errors are 422.
        params: spec.params ? parseOrThrow(spec.params, req.params, 'bad_request', 'path') : {},
        query: spec.query ? parseOrThrow(spec.query, req.query, 'bad_request', 'query string') : {},
        body: spec.body ? parseOrThrow(spec.body, req.body ?? {}, 'validation_failed', 'request body') : undefined,
      } as RouteInput<P, Q, B>;
      await handler(input, req, res);
    });
  }
}
