import type { Request, Response } from 'express';

// Requests no route took (404s, refused before routing): one label, never the raw URL.
export const UNMATCHED_ROUTE = 'unmatched';

const FOLLOWER = Symbol('route pattern follower');

// A router mounted under an id (an engine's `/agents/{agentId}`) has that id in its baseUrl: it is
// labelled by the pattern, so that labels stay bounded whatever the number of agents.
const UUID_SEGMENT = /\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=\/|$)/gi;

/**
 * Follows which route pattern serves `req`, read when the router picks the route, with the mount path
 * in effect then: after an error leaves a mounted router, Express has already put its `baseUrl` back,
 * so reading it when the response ends would drop the prefix. Returns a reader of the pattern so far.
 */
export function followRoutePattern(req: Request): () => string {
  // Request timing and request spans both follow it: a second follower would replace the first's setter.
  const following = (req as Request & { [FOLLOWER]?: () => string })[FOLLOWER];
  if (following !== undefined) return following;
  let route = UNMATCHED_ROUTE;
  let current: unknown;
  Object.defineProperty(req, 'route', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (value: { path?: unknown } | undefined) => {
      current = value;
      if (value?.path !== undefined) route = `${req.baseUrl.replace(UUID_SEGMENT, '/:id')}${String(value.path)}`;
    },
  });
  const read = () => route;
  Object.defineProperty(req, FOLLOWER, { value: read });
  return read;
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
