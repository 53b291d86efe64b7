// What field schemas cannot see, refused for every request right after the body is parsed, before any
// handler or middleware reads it: a body nested too deep, and a key or string PostgreSQL cannot store
// (NUL, lone surrogates) or validation would drop (`__proto__`), anywhere in the body or query string.
import { findJsonProblem, formatIssuePath } from '@agentplane/contracts';
import type { RequestHandler } from 'express';
import { AppError } from './app-error.js';

// A parsed query string is a map of strings and arrays of strings, two levels at most.
const QUERY_MAX_DEPTH = 2;

/** Throws the 422 naming the path of the first value in a parsed JSON body that cannot be accepted. */
export function refuseUnstorableBody(body: unknown, { maxDepth }: { maxDepth: number }): void {
  const problem = findJsonProblem(body, { maxDepth });
  if (problem === undefined) return;
  throw new AppError('validation_failed', 'The request body holds a value that cannot be accepted.', {
    errors: [{ path: formatIssuePath(problem.path), message: problem.message }],
  });
}

export function refuseUnstorableInput({ maxBodyDepth }: { maxBodyDepth: number }): RequestHandler {
  return (req, _res, next) => {
    refuseUnstorableBody(req.body, { maxDepth: maxBodyDepth });
    const query = findJsonProblem(req.query, { maxDepth: QUERY_MAX_DEPTH });
    if (query !== undefined) {
      throw new AppError('bad_request', 'The query string holds a value that cannot be accepted.', {
        errors: [{ path: formatIssuePath(query.path), message: query.message }],
      });
    }
    next();
  };
}
