// W3C Trace Context at the HTTP edge: a caller's `traceparent` read into a parent context, and the
// `traceresponse` header (Trace Context Level 2) that tells the caller which trace its request made.
import type { IncomingHttpHeaders } from 'node:http';
import { type Context, defaultTextMapGetter, ROOT_CONTEXT, type SpanContext } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

const propagator = new W3CTraceContextPropagator();

/** The caller's trace as a parent context; the root context when it sent none, or one that does not parse. */
export function contextFromHeaders(headers: IncomingHttpHeaders): Context {
  return propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
}

export function formatTraceresponse({ traceId, spanId, traceFlags }: SpanContext): string {
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}
