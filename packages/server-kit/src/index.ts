export type { SpanProcessor } from '@opentelemetry/sdk-trace';
export { Counter, Gauge, Histogram, type Registry } from 'prom-client';
export { type AllowedOriginsOptions, corsForAllowedOrigins } from './allowed-origins.js';
export { AppError, type AppErrorOptions, ERROR_STATUS, type ErrorCode, type FieldError } from './app-error.js';
export {
  createCheckedHttpAgent,
  createEgressPolicy,
  type EgressPolicy,
  type EgressPolicyOptions,
  EgressRefusedError,
  isEgressRefusal,
} from './egress-policy.js';
export {
  type EgressAllowList,
  formatEgressAllowList,
  isAllowedHost,
  LOOPBACK_EGRESS_ALLOW,
  literalAddressOf,
  NO_EGRESS_ALLOWED,
  refusedRangeOf,
  ZEgressAllowList,
} from './egress-rules.js';
export { ConfigError, parseEnv } from './env.js';
export type { DocumentedEnv, EnvDocs, EnvVarDoc } from './env-docs.js';
export { LOG_LEVEL_DOC, SHARED_ENV_DOCS, ZLogLevel, ZPort } from './env-fields.js';
export { OPENAPI_DOCUMENT_ROUTE } from './http/openapi-document-route.js';
export {
  type RouteHandler,
  type RouteInput,
  type RouteSpec,
  SpecRouter,
  type SpecRouterOptions,
  toOpenApiRoute,
} from './http/spec-router.js';
export { createLogger, type Logger } from './logger.js';
export { measureHttpRequests } from './metrics/http-metrics.js';
export { METRICS_ENV_DOCS, METRICS_ENV_FIELDS, readMetricsSettings } from './metrics/metrics-env.js';
export { type MetricsListener, type MetricsSettings, startMetricsListener } from './metrics/metrics-listener.js';
export { createMetricsRegistry, METRIC_PREFIX } from './metrics/metrics-registry.js';
export { perTurnLoader } from './per-turn-loader.js';
export { notFoundHandler, problemHandler, sendProblem, toAppError } from './problem-handler.js';
export { type RequestLoggerOptions, requestLogger } from './request-logger.js';
export { followRoutePattern, onResponseEnd, UNMATCHED_ROUTE } from './route-pattern.js';
export { type RunningServer, type ServeOptions, serve } from './serve.js';
export { TRACER_NAME, traceHttpRequests } from './tracing/http-request-spans.js';
export {
  OPERATOR_TRACING_ENV_DOCS,
  OPERATOR_TRACING_ENV_FIELDS,
  type OperatorTracing,
  type OperatorTracingSettings,
  readOperatorTracingSettings,
  startOperatorTracing,
} from './tracing/operator-tracing.js';
export { createOtlpSpanExporter, type OtlpExporterSettings, type OtlpProtocol } from './tracing/otlp-span-exporter.js';
export {
  createThreadSpanProcessor,
  reportFromExportThread,
  type SpanExportThreadOptions,
  serveSpanExport,
  type ThreadSpanProcessor,
} from './tracing/span-export-thread.js';
export {
  createBatchSpanProcessor,
  createSpanPipeline,
  pipelineResource,
  type SpanPipeline,
} from './tracing/span-pipeline.js';
export { contextFromHeaders, formatTraceresponse } from './tracing/trace-context.js';
export { refuseUnstorableBody, refuseUnstorableInput } from './unstorable-input.js';
