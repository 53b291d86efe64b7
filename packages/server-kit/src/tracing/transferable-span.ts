// An ended span as plain data, to cross to the export thread: a message keeps no prototypes or methods,
// so the span's context, trace state, resource and scope are carried as values and rebuilt there into
// the ReadableSpan the OTLP serializers read.
import {
  type Attributes,
  createTraceState,
  type HrTime,
  type Link,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';

type PlainSpanContext = Omit<SpanContext, 'traceState'> & { traceState?: string };

export type TransferableSpan = {
  name: string;
  kind: SpanKind;
  context: PlainSpanContext;
  parent?: PlainSpanContext;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  status: SpanStatus;
  attributes: Attributes;
  links: (Omit<Link, 'context'> & { context: PlainSpanContext })[];
  events: TimedEvent[];
  scope: InstrumentationScope;
  droppedAttributesCount: number;
  droppedEventsCount: number;
  droppedLinksCount: number;
};

// Field by field rather than by spreading: this runs for every span on the event loop.
function plainContext(context: SpanContext): PlainSpanContext {
  const plain: PlainSpanContext = { traceId: context.traceId, spanId: context.spanId, traceFlags: context.traceFlags };
  if (context.isRemote !== undefined) plain.isRemote = context.isRemote;
  if (context.traceState !== undefined) plain.traceState = context.traceState.serialize();
  return plain;
}

function spanContextOf({ traceState, ...context }: PlainSpanContext): SpanContext {
  return traceState === undefined ? context : { ...context, traceState: createTraceState(traceState) };
}

export function toTransferableSpan(span: ReadableSpan): TransferableSpan {
  const { parentSpanContext } = span;
  return {
    name: span.name,
    kind: span.kind,
    context: plainContext(span.spanContext()),
    ...(parentSpanContext === undefined ? {} : { parent: plainContext(parentSpanContext) }),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    status: span.status,
    attributes: span.attributes,
    links: span.links.length === 0 ? [] : span.links.map((link) => ({ ...link, context: plainContext(link.context) })),
    events: span.events,
    scope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** One object per instrumentation scope, kept by the receiving side across spans. */
export type SharedScopes = Map<string, InstrumentationScope>;

/**
 * The span again, under `resource`. The OTLP serializers group spans by the identity of their
 * resource and scope objects: every span of a pipeline is given the same resource, and the same
 * scope object as the spans of its scope before it, or each would be sent in a group of its own.
 */
export function fromTransferableSpan(span: TransferableSpan, resource: Resource, scopes: SharedScopes): ReadableSpan {
  const context = spanContextOf(span.context);
  const scopeKey = `${span.scope.name}@${span.scope.version ?? ''}:${span.scope.schemaUrl ?? ''}`;
  let scope = scopes.get(scopeKey);
  if (scope === undefined) {
    scope = span.scope;
    scopes.set(scopeKey, scope);
  }
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => context,
    ...(span.parent === undefined ? {} : { parentSpanContext: spanContextOf(span.parent) }),
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    ended: true,
    status: span.status,
    attributes: span.attributes,
    links: span.links.map((link) => ({ ...link, context: spanContextOf(link.context) })),
    events: span.events,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
