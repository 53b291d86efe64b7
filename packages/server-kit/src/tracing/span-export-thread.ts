// Span export on a worker thread. Encoding a batch as OTLP takes tens of microseconds a span, and
// spans kept for a second's batch outlive the young generation: on the event loop, both land on the
// requests in flight when a batch goes. Here the event loop only writes each ended span down as
// plain data and hands them over as one JSON text every HANDOFF_MS (a message costs tens of
// microseconds whatever it holds, and cloning a text is a copy, where cloning objects walks them);
// the thread batches, encodes and sends.
import type { MessagePort } from 'node:worker_threads';
import { TraceFlags } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import {
  fromTransferableSpan,
  type SharedScopes,
  type TransferableSpan,
  toTransferableSpan,
} from './transferable-span.js';

const HANDOFF_MS = 100;
const HANDOFF_SPANS = 512;
// As many as one batch queue of the thread holds.
const GAP_SPANS = 2048;

/** `spans`: a JSON array of TransferableSpan. JSON has no NaN or Infinity: such an attribute arrives as null. */
type ToThread = { type: 'spans'; spans: string } | { type: 'flush'; id: number } | { type: 'shutdown' };
type FromThread = { type: 'flushed'; id: number } | { type: 'report'; report: unknown } | { type: 'closed' };

export type SpanExportThreadOptions = {
  /** Told of what the thread reports (`reportFromExportThread`): export failures, refused connections. */
  onReport: (report: unknown) => void;
};

/** A processor whose thread can be replaced: `attach` hands its spans to a new thread's end of the pipeline. */
export type ThreadSpanProcessor = SpanProcessor & {
  /**
   * Goes on through `port` once the thread behind the previous one is gone (its owner started another):
   * the spans ended in between, up to GAP_SPANS, are handed over first. After shutdown it closes `port`.
   */
  attach: (port: MessagePort) => void;
};

/**
 * The event loop's side: a span processor handing every sampled span through `port` to the export
 * thread, whose other end serveSpanExport serves. It is shut down once the thread sent what it held,
 * or once the thread is gone.
 */
export function createThreadSpanProcessor(first: MessagePort, options: SpanExportThreadOptions): ThreadSpanProcessor {
  let port = first;
  let pending: TransferableSpan[] = [];
  let timer: NodeJS.Timeout | undefined;
  let shutDown = false;
  let nextFlush = 0;
  const waiting = new Map<number, () => void>();
  // No thread behind `port`: what is ended waits for the next one (attach), up to GAP_SPANS.
  let stopped = false;
  const onStopped: (() => void)[] = [];
  const whenStopped = () =>
    stopped ? Promise.resolve() : new Promise<void>((resolve) => void onStopped.push(resolve));

  const listen = (to: MessagePort) => {
    to.once('close', () => {
      if (to !== port) return;
      stopped = true;
      for (const done of waiting.values()) done();
      for (const done of onStopped.splice(0)) done();
    });
    to.on('message', (message: FromThread) => {
      if (message.type === 'report') options.onReport(message.report);
      else if (message.type === 'flushed') waiting.get(message.id)?.();
      else to.close();
    });
    // Its end is the pipeline's shutdown; the port alone never keeps the engine running, but it does
    // while a flush or the shutdown waits for the thread.
    to.unref();
  };
  listen(first);

  const send = (message: ToThread) => {
    if (!stopped) port.postMessage(message);
  };
  const post = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0 || stopped) return;
    send({ type: 'spans', spans: JSON.stringify(pending) });
    pending = [];
  };
  const reply = (id: number) =>
    new Promise<void>((resolve) => {
      waiting.set(id, () => {
        waiting.delete(id);
        resolve();
      });
      if (stopped) resolve();
    });

  return {
    onStart: () => undefined,
    onEnd: (span: ReadableSpan) => {
      if (shutDown || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
      if (stopped && pending.length >= GAP_SPANS) return;
      pending.push(toTransferableSpan(span));
      if (pending.length >= HANDOFF_SPANS) post();
      // Unreferenced: a flush or the shutdown hands over what is pending; the timer alone keeps nothing running.
      else timer ??= setTimeout(post, HANDOFF_MS).unref();
    },
    forceFlush: async () => {
      post();
      const id = nextFlush++;
      const flushed = reply(id);
      const through = port;
      through.ref();
      send({ type: 'flush', id });
      await flushed;
      if (!shutDown) through.unref();
    },
    shutdown: async () => {
      if (shutDown) return whenStopped();
      post();
      shutDown = true;
      port.ref();
      send({ type: 'shutdown' });
      await whenStopped();
    },
    attach: (next) => {
      if (shutDown) {
        next.close();
        return;
      }
      port = next;
      stopped = false;
      listen(next);
      post();
    },
  };
}

/** Sends `report` to the event loop's onReport, from the export thread. */
export function reportFromExportThread(port: MessagePort, report: unknown): void {
  port.postMessage({ type: 'report', report } satisfies FromThread);
}

/**
 * The thread's side of one pipeline: spans from createThreadSpanProcessor go to `processor` (a batch
 * processor with the exporter), under `resource`; on shutdown, what it holds is sent, `close` runs,
 * and the port closes.
 */
export function serveSpanExport(
  port: MessagePort,
  { processor, resource, close }: { processor: SpanProcessor; resource: Resource; close?: () => Promise<void> },
): void {
  const scopes: SharedScopes = new Map();
  port.on('message', (message: ToThread) => {
    switch (message.type) {
      case 'spans':
        for (const span of JSON.parse(message.spans) as TransferableSpan[]) {
          processor.onEnd(fromTransferableSpan(span, resource, scopes));
        }
        return;
      case 'flush':
        void processor
          .forceFlush()
          .then(() => port.postMessage({ type: 'flushed', id: message.id } satisfies FromThread));
        return;
      case 'shutdown':
        void processor
          .shutdown()
          .then(() => close?.())
          .finally(() => port.postMessage({ type: 'closed' } satisfies FromThread));
    }
  });
}
