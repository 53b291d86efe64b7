// An OTLP/HTTP span exporter built from the official exporter parts, with every setting given here.
// The packaged OTLPTraceExporter also reads OTEL_EXPORTER_OTLP_* from the environment and merges
// those headers into its own: for a tenant's backend that would hand it the operator's credentials.
import type http from 'node:http';
import type https from 'node:https';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import {
  JsonTraceSerializer,
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
} from '@opentelemetry/otlp-transformer';
import type { SpanExporter } from '@opentelemetry/sdk-trace';

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type OtlpExporterSettings = {
  /** The full traces URL (…/v1/traces). */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  /** Makes the connection; the engine's checks the address against its egress policy. */
  agentFactory: (protocol: string) => http.Agent | https.Agent;
  timeoutMillis?: number;
  /** Told of each export that failed (an unreachable or refused endpoint), which the SDK would drop silently. */
  onFailure?: (error: Error | undefined, spans: number) => void;
};

const CONTENT_TYPES: Record<OtlpProtocol, string> = {
  'http/protobuf': 'application/x-protobuf',
  'http/json': 'application/json',
};

export function createOtlpSpanExporter(settings: OtlpExporterSettings): SpanExporter {
  const headers = { ...settings.headers, 'Content-Type': CONTENT_TYPES[settings.protocol] };
  const serializer = settings.protocol === 'http/json' ? JsonTraceSerializer : ProtobufTraceSerializer;
  const delegate = createOtlpHttpExportDelegate(
    {
      url: settings.url,
      headers: async () => headers,
      agentFactory: settings.agentFactory,
      timeoutMillis: settings.timeoutMillis ?? 10_000,
      concurrencyLimit: 30,
      compression: 'none',
    },
    serializer,
    'otlp_http_span_exporter',
    TraceExporterMetricsHelper,
    undefined,
  );
  const exporter = new OTLPExporterBase(delegate);
  const { onFailure } = settings;
  if (onFailure === undefined) return exporter;
  return {
    export: (spans, done) =>
      exporter.export(spans, (result) => {
        if (result.code === ExportResultCode.FAILED) onFailure(result.error, spans.length);
        done(result);
      }),
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
  };
}
