// Spans handed to the export thread: what crosses is encoded exactly as the span itself would be, and
// the handover keeps the flush and shutdown promises (sent before resolving) and the sampling decision.
// Both ends of the channel run in this thread: what is tested is the protocol, the worker only hosts it.
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  context,
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createThreadSpanProcessor, reportFromExportThread, serveSpanExport } from './span-export-thread.js';
import { pipelineResource } from './span-pipeline.js';
import { fromTransferableSpan, type SharedScopes, toTransferableSpan } from './transferable-span.js';

const REMOTE_PARENT = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: createTraceState('vendor=value,other=1'),
};

/** Spans of every shape the engine makes: a remote parent with trace state, a child, attributes of each type, an event, a link, an error. */
function endedSpans(): ReadableSpan[] {
  const recorded = new InMemorySpanExporter();
  const provider = new TracerProvider({
    resource: pipelineResource('transfer-test', { 'agentplane.agent.id': 'agent-1' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: recorded })],
  });
  const tracer = provider.getTracer('agentplane', '1.2.3');
  const parent = trace.setSpanContext(ROOT_CONTEXT, REMOTE_PARENT);
  const run = tracer.startSpan('invoke_agent demo', { attributes: { 'gen_ai.agent.name': 'demo' } }, parent);
  const chat = tracer.startSpan(
    'chat gpt',
    {
      kind: SpanKind.CLIENT,
      attributes: { 'gen_ai.usage.input_tokens': 12, ratio: 0.25, streamed: true, reasons: ['stop', 'length'] },
      links: [{ context: REMOTE_PARENT, attributes: { why: 'caller' } }],
    },
    trace.setSpan(context.active(), run),
  );
  chat.addEvent('first token', { position: 1 });
  chat.setStatus({ code: SpanStatusCode.ERROR, message: 'tool failed' });
  chat.end();
  run.end();
  return recorded.getFinishedSpans();
}

const crossed = (scopes: SharedScopes) => (span: ReadableSpan) =>
  fromTransferableSpan(JSON.parse(JSON.stringify([toTransferableSpan(span)]))[0], span.resource, scopes);

describe('a span handed over as plain data', () => {
  it('encodes to the same OTLP protobuf and JSON as the span itself', () => {
    const spans = endedSpans();
    expect(spans).toHaveLength(2);
    const again = spans.map(crossed(new Map()));
    expect(Buffer.from(ProtobufTraceSerializer.serializeRequest(again) ?? [])).toEqual(
      Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) ?? []),
    );
    const json = (list: ReadableSpan[]) => Buffer.from(JsonTraceSerializer.serializeRequest(list) ?? []).toString();
    expect(json(again)).toBe(json(spans));
    // The trace state and parent survived: the JSON shows them, so the comparison above covered them.
    expect(json(again)).toContain('vendor=value,other=1');
    expect(json(again)).toContain(REMOTE_PARENT.spanId);
  });
});

describe('the handover to the export thread', () => {
  const channels: MessageChannel[] = [];
  afterEach(() => {
    for (const channel of channels.splice(0)) {
      channel.port1.close();
      channel.port2.close();
    }
  });

  function connect(onReport: (report: unknown) => void = () => undefined) {
    const channel = new MessageChannel();
    channels.push(channel);
    // Kept past the exporter's shutdown, which empties an InMemorySpanExporter.
    const exported: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (batch, done) => {
        exported.push(...batch);
        done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: async () => undefined,
    };
    let closed = false;
    const spans = endedSpans();
    serveSpanExport(channel.port2, {
      processor: new BatchSpanProcessor({ exporter, scheduledDelayMillis: 60_000 }),
      resource: spans[0]?.resource ?? pipelineResource('transfer-test'),
      close: async () => {
        closed = true;
      },
    });
    const processor = createThreadSpanProcessor(channel.port1, { onReport });
    return { channel, processor, exported, spans, closed: () => closed };
  }

  it('has every span exported by the time forceFlush resolves, and closes the pipeline on shutdown', async () => {
    const { processor, exported, spans, closed } = connect();
    for (const span of spans) processor.onEnd(span);
    // The batch waits a minute for more: only the flush sends it.
    await processor.forceFlush();
    expect(exported.map((span) => span.name)).toEqual(['chat gpt', 'invoke_agent demo']);
    expect(exported[0]?.parentSpanContext?.spanId).toBe(spans[1]?.spanContext().spanId);

    processor.onEnd(spans[0] as ReadableSpan);
    await processor.shutdown();
    expect(exported).toHaveLength(3);
    expect(closed()).toBe(true);
  });

  it('hands over nothing that was not sampled', async () => {
    const { processor, exported, spans } = connect();
    const [sampled] = spans as [ReadableSpan];
    const unsampled = { ...sampled, spanContext: () => ({ ...sampled.spanContext(), traceFlags: TraceFlags.NONE }) };
    processor.onEnd(unsampled);
    await processor.forceFlush();
    expect(exported).toEqual([]);
  });

  it("passes on the thread's reports", async () => {
    let told: (report: unknown) => void = () => undefined;
    const reported = new Promise((resolve) => {
      told = resolve;
    });
    const { channel } = connect((report) => told(report));
    reportFromExportThread(channel.port2, { kind: 'export-failed', spans: 2 });
    await expect(reported).resolves.toEqual({ kind: 'export-failed', spans: 2 });
  });

  it('hands the spans ended while no thread ran to the thread it is attached to next', async () => {
    const { channel, processor, spans } = connect();
    channel.port2.close();
    await new Promise((resolve) => channel.port1.once('close', resolve));
    processor.onEnd(spans[0] as ReadableSpan);
    // Nothing to send through: the flush resolves, and the span waits.
    await processor.forceFlush();
    const next = connect();
    processor.attach(next.channel.port1);
    processor.onEnd(spans[1] as ReadableSpan);
    await processor.forceFlush();
    expect(next.exported.map((span) => span.name)).toEqual(['chat gpt', 'invoke_agent demo']);
    await processor.shutdown();
    expect(next.closed()).toBe(true);
  });

  it('closes a port it is attached to after its shutdown', async () => {
    const { processor } = connect();
    await processor.shutdown();
    const late = new MessageChannel();
    channels.push(late);
    const closed = new Promise((resolve) => late.port2.once('close', () => resolve('closed')));
    processor.attach(late.port1);
    await expect(closed).resolves.toBe('closed');
  });

  it('resolves a flush and the shutdown when the thread is gone, instead of waiting forever', async () => {
    const { channel, processor, spans } = connect();
    // What a thread's end does to its ports.
    channel.port2.close();
    processor.onEnd(spans[0] as ReadableSpan);
    await expect(processor.forceFlush()).resolves.toBeUndefined();
    await expect(processor.shutdown()).resolves.toBeUndefined();
  });
});
