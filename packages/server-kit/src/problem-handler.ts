import { formatZodIssues } from '@agentplane/contracts';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { AppError } from './app-error.js';

/** What body-parser and http-errors attach to the errors they raise. */
type HttpLikeError = { type?: string; status?: number; expose?: boolean; limit?: number };

const MIB = 1024 * 1024;

/** A body parser's limit in words: its own, since routes set different ones (1 MiB when it names none). */
function describeLimit(limit: number | undefined): string {
  if (limit === undefined || limit === MIB) return '1 MiB';
  return limit % 1024 === 0 ? `${limit / 1024} KiB` : `${limit} bytes`;
}

// SQLSTATEs that say the database is busy or out of reach, not that the request is wrong: a lost or
// refused connection (08), exhausted resources (53), a shutdown (57P), a statement or lock timeout
// (57014, 55P03), a deadlock or serialization failure (40P01, 40001). The client may try again.
const TRANSIENT_SQLSTATE = /^(08|53|57P|57014$|55P03$|40P01$|40001$)/;

/** A PostgreSQL error (pg's DatabaseError: a SQLSTATE and a severity) of the database being busy or away. */
function isTransientDatabaseError(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && typeof severity === 'string' && TRANSIENT_SQLSTATE.test(code);
}

export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isTransientDatabaseError(error)) {
    return new AppError('service_unavailable', 'The database is busy or out of reach; try again shortly.', {
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
  if (error instanceof ZodError) {
    return new AppError('validation_failed', 'The request is invalid.', {
      errors: formatZodIssues(error),
    });
  }
  const httpError = error as HttpLikeError;
  switch (httpError?.type) {
    case 'entity.too.large':
      return new AppError('payload_too_large', `The request body is larger than ${describeLimit(httpError.limit)}.`);
    case 'entity.parse.failed':
      return new AppError('bad_request', 'The request body is not valid JSON.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', 'The request body encoding is not supported.');
  }
  // The router raises it for a path parameter that is not valid percent-encoded UTF-8 (%ZZ, %C0%AF).
  if (error instanceof URIError && httpError.status === 400) {
    return new AppError('bad_request', 'The request path is not valid percent-encoded UTF-8.');
  }
  if (httpError?.expose && httpError.status === 400) {
    return new AppError('bad_request', 'The request could not be read.');
  }
  return new AppError('internal', 'An unexpected error occurred.', { cause: error });
}

export function sendProblem(res: Response, error: AppError): void {
  res
    .status(error.status)
    .set(error.headers)
    .type('application/problem+json')
    .json({
      type: error.typeUri,
      title: error.title,
      status: error.status,
      detail: error.message,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(res.req.id === undefined ? {} : { request_id: String(res.req.id) }),
    });
}

/** Renders every error as problem+json; a stack trace or SQL never reaches the client, only the log. */
export const problemHandler: ErrorRequestHandler = (error, req, res, next) => {
  if (res.headersSent) {
    next(error);
    return;
  }
  const appError = toAppError(error);
  if (appError.code === 'internal') req.log?.error({ err: error }, 'request failed');
  else if (isTransientDatabaseError(error)) req.log?.warn({ err: error }, 'request refused: the database is busy');
  sendProblem(res, appError);
};

export const notFoundHandler: RequestHandler = (req) => {
  throw new AppError('not_found', `No route for ${req.method} ${req.path}.`);
};
