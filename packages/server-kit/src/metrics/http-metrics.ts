import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from './metrics-registry.js';

// Requests no route took (404s, refused before routing): one label, never the raw URL.
const UNMATCHED_ROUTE = 'unmatched';

/**
 * Times every request by method, route pattern and status. The pattern is read when the router picks
 * the route, with the mount path in effect then: after an error leaves a mounted router, Express has
 * already put its `baseUrl` back, so reading it when the response ends would drop the prefix.
 */
export function measureHttpRequests(registry: Registry): RequestHandler {
  const duration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time from a request arriving to its response ending, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return (req, res, next) => {
    const end = duration.startTimer();
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
    // 'finish' comes before the client can read the end of the response; 'close' alone for a client
    // that left mid-response (an SSE stream it dropped).
    let timed = false;
    const done = () => {
      if (!timed) end({ method: req.method, route, status: String(res.statusCode) });
      timed = true;
    };
    res.once('finish', done);
    res.once('close', done);
    next();
  };
}
