// One declaration per route drives its access check, its input validation and its OpenAPI entry, so a
// service's document cannot drift from what it does. Each service says what its access kinds mean: the
// manager's sessions and workspace roles, an engine's bearer tokens.
import { formatZodIssues, type HttpMethod, type OpenApiResponse, type OpenApiRoute } from '@agentplane/contracts';
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { z } from 'zod';
import { AppError, type ErrorCode } from '../app-error.js';

export type RouteSpec<
  A,
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
> = {
  method: HttpMethod;
  /** Express path below the router's mount point, e.g. `/workspaces/:id`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  access: A;
  params?: P;
  query?: Q;
  /** The JSON body, validated before the handler runs (422). */
  body?: B;
  /**
   * A body the handler parses itself, documented here but not parsed: raw bytes a signature covers, or
   * input whose checks depend on state the handler reads first.
   */
  handlerBody?: { contentType: string; schema: z.ZodType };
  responses: Record<number, OpenApiResponse>;
  /** Extra problem statuses the handler itself can answer (404, 409, 429…). */
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

/** How a service turns its access kinds into checks, and into the document's words. */
export type SpecRouterOptions<A> = {
  /** What runs before the input is parsed: the access checks, and the body's reader on a service without a global one. */
  middleware: (spec: RouteSpec<A>) => RequestHandler[];
  describeAccess: (access: A) => Pick<OpenApiRoute, 'authenticated' | 'workspaceScoped'>;
  /** What the document's paths start with, e.g. the manager's /api/v1; nothing by default. */
  pathPrefix?: string;
};

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, code: ErrorCode, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError(code, `The ${what} is invalid.`, { errors: formatZodIssues(result.error) });
  }
  return result.data;
}

/** The route's OpenAPI entry; a service can build its document from its specs without routing them. */
export function toOpenApiRoute<A>(
  spec: RouteSpec<A>,
  options: Pick<SpecRouterOptions<A>, 'describeAccess' | 'pathPrefix'>,
): OpenApiRoute {
  const body = spec.body ?? spec.handlerBody?.schema;
  return {
    method: spec.method,
    path: (options.pathPrefix ?? '') + spec.path.replace(/:(\w+)/g, '{$1}'),
    operationId: spec.operationId,
    summary: spec.summary,
    tag: spec.tag,
    ...options.describeAccess(spec.access),
    ...(spec.params ? { params: spec.params } : {}),
    ...(spec.query ? { query: spec.query } : {}),
    ...(body ? { body } : {}),
    ...(spec.handlerBody ? { bodyContentType: spec.handlerBody.contentType } : {}),
    responses: spec.responses,
    ...(spec.problems ? { problems: spec.problems } : {}),
  };
}

export class SpecRouter<A> {
  readonly router: Router = Router();
  readonly routes: OpenApiRoute[] = [];

  constructor(private readonly options: SpecRouterOptions<A>) {}

  add<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodType>(
    spec: RouteSpec<A, P, Q, B>,
    handler: RouteHandler<P, Q, B>,
  ): void {
    this.routes.push(toOpenApiRoute(spec, this.options));
    this.router[spec.method](spec.path, ...this.options.middleware(spec), async (req, res) => {
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
