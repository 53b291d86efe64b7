import type { RequestHandler } from 'express';
import { Histogram, type Registry } from 'prom-client';
import { followRoutePattern, onResponseEnd } from '../route-pattern.js';
import { METRIC_PREFIX } from './metrics-registry.js';

/** Times every request by method, route pattern and status. */
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
    const route = followRoutePattern(req);
    onResponseEnd(res, () => end({ method: req.method, route: route(), status: String(res.statusCode) }));
    next();
  };
}
