import type { Request, Response } from 'express';

// Requests no route took (404s, refused before routing): one label, never the raw URL.
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Follows which route pattern serves `req`, read when the router picks the route, with the mount path
 * in effect then: after an error leaves a mounted router, Express has already put its `baseUrl` back,
 * so reading it when the response ends would drop the prefix. Returns a reader of the pattern so far.
 */
export function followRoutePattern(req: Request): () => string {
  let route = UNMATCHED_ROUTE;
  let current: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (value: { path?: unknown } | undefined) => {
      current = value;
      if (value?.path !== undefined) route = `${req.baseUrl}${String(value.path)}`;
    },
  });
  return () => route;
}

/** Calls `done` once when the response ends: 'finish' normally, 'close' alone for a client that left mid-response. */
export function onResponseEnd(res: Response, done: () => void): void {
  let ended = false;
  const end = () => {
    if (!ended) done();
    ended = true;
  };
  res.once('finish', end);
  res.once('close', end);
}
