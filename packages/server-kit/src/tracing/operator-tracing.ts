// The operator's own traces (the manager's requests and publishes), sent where the standard
// OTEL_EXPORTER_OTLP_* variables say, and off when no endpoint is set. The packaged exporters read
// those variables themselves (headers, timeout, a signal-specific URL), as every OTel SDK does.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { z } from 'zod';
import type { EnvDocs } from '../env-docs.js';
import { createBatchSpanProcessor, createSpanPipeline } from './span-pipeline.js';

export const OPERATOR_TRACING_ENV_FIELDS = {
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
};

export const OPERATOR_TRACING_ENV_DOCS: EnvDocs<typeof OPERATOR_TRACING_ENV_FIELDS> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    description:
      "The operator's OTLP/HTTP backend for the manager's own traces (`/v1/traces` is appended); unset together with the next one, the manager traces nothing. See [Tracing](/operations/tracing)",
    default: 'none (not traced)',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    description:
      'The full traces URL, taking precedence over `OTEL_EXPORTER_OTLP_ENDPOINT`. The exporter also reads the other standard variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`, …)',
  },
  OTEL_EXPORTER_OTLP_PROTOCOL: { description: '`http/protobuf` or `http/json` (gRPC is not offered)' },
};

export type OperatorTracingSettings = { protocol: 'http/protobuf' | 'http/json' } | undefined;

export function readOperatorTracingSettings(parsed: {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' | 'http/json';
}): OperatorTracingSettings {
  const configured = parsed.OTEL_EXPORTER_OTLP_ENDPOINT ?? parsed.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return configured === undefined ? undefined : { protocol: parsed.OTEL_EXPORTER_OTLP_PROTOCOL };
}

export type OperatorTracing = { shutdown: () => Promise<void> };

/** Registers the process-wide tracer and context (what traceHttpRequests and publish spans use); undefined when off. */
export function startOperatorTracing(
  serviceName: string,
  settings: OperatorTracingSettings,
): OperatorTracing | undefined {
  if (settings === undefined) return undefined;
  const exporter = settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const pipeline = createSpanPipeline({ serviceName, processor: createBatchSpanProcessor(exporter) });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider({ getTracer: () => pipeline.tracer });
  return {
    shutdown: async () => {
      await pipeline.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
