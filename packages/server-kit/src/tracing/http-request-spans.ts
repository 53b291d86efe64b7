// One SERVER span per request, named by its route pattern (never the raw URL, which holds ids), and
// made the active span for the handlers, so what they trace (a publish) nests under it. It uses the
// global tracer: without a registered provider (operator-tracing.ts) the spans are no-ops.
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { RequestHandler } from 'express';
import { followRoutePattern, onResponseEnd, UNMATCHED_ROUTE } from '../route-pattern.js';
import { contextFromHeaders } from './trace-context.js';

export const TRACER_NAME = 'agentplane';

export function traceHttpRequests(): RequestHandler {
  const tracer = trace.getTracer(TRACER_NAME);
  return (req, res, next) => {
    const span = tracer.startSpan(
      req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: req.method, [ATTR_URL_SCHEME]: req.protocol },
      },
      contextFromHeaders(req.headers),
    );
    const route = followRoutePattern(req);
    onResponseEnd(res, () => {
      const pattern = route();
      if (pattern !== UNMATCHED_ROUTE) {
        span.updateName(`${req.method} ${pattern}`);
        span.setAttribute(ATTR_HTTP_ROUTE, pattern);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
      // A 4xx is the caller's mistake, not this server's: only 5xx marks the span failed.
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(context.active(), span), next);
  };
}
