// A small OTLP/HTTP traces receiver for tests and the bench (no Collector here): it keeps every export
// request, and decodes OTLP/JSON bodies (the protocol's own JSON mapping) into flat spans. Protobuf
// bodies are kept raw: a test of that protocol checks they arrived, and what they carry, as bytes.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { listenOnLoopback } from './listen-on-loopback.js';

export type ReceivedExport = { path: string; headers: IncomingHttpHeaders; body: Buffer };

export type AttributeValue = string | number | boolean | AttributeValue[] | undefined;

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, AttributeValue>;
  status: { code?: number; message?: string };
  service: AttributeValue;
  /** The span's events (Span.addEvent), in order. */
  events: { name: string; attributes: Record<string, AttributeValue> }[];
};

export type OtlpReceiver = {
  url: string;
  exports: ReceivedExport[];
  /** Every span of every OTLP/JSON export so far. */
  spans: () => ReceivedSpan[];
  close: () => Promise<void>;
};

type OtlpAnyValue = {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpAnyValue[] };
};
type OtlpKeyValue = { key: string; value: OtlpAnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
  events?: { name: string; attributes?: OtlpKeyValue[] }[];
};
type OtlpTraceRequest = {
  resourceSpans?: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
};

function decodeValue(value: OtlpAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return value.arrayValue?.values?.map(decodeValue);
}

function attributesOf(list: OtlpKeyValue[] = []): Record<string, AttributeValue> {
  return Object.fromEntries(list.map(({ key, value }) => [key, decodeValue(value)]));
}

function decodeJsonSpans(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as OtlpTraceRequest;
  return (request.resourceSpans ?? []).flatMap(({ resource, scopeSpans = [] }) => {
    const service = attributesOf(resource?.attributes)['service.name'];
    return scopeSpans.flatMap(({ spans = [] }) =>
      spans.map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        status: span.status ?? {},
        service,
        events: (span.events ?? []).map((event) => ({ name: event.name, attributes: attributesOf(event.attributes) })),
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      exports.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks) });
      const json = req.headers['content-type']?.startsWith('application/json') ?? false;
      res.writeHead(200, { 'Content-Type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  const { origin } = await listenOnLoopback(server);
  return {
    url: `${origin}/v1/traces`,
    exports,
    spans: () =>
      exports
        .filter((received) => received.headers['content-type']?.startsWith('application/json'))
        .flatMap((received) => decodeJsonSpans(received.body)),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
