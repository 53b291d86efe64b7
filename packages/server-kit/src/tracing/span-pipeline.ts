// A tracer provider feeding one exporter through a batch processor, so export never sits on a
// request's path: spans are queued when they end and sent in the background.
import type { Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export type SpanPipeline = {
  tracer: Tracer;
  /** Sends every span already ended, then stops the exporter: nothing ended before this is lost. */
  shutdown: () => Promise<void>;
};

export function createSpanPipeline(options: {
  serviceName: string;
  exporter: SpanExporter;
  attributes?: Record<string, string>;
}): SpanPipeline {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, ...options.attributes }),
    spanProcessors: [new BatchSpanProcessor({ exporter: options.exporter })],
  });
  return {
    tracer: provider.getTracer('agentplane'),
    shutdown: async () => {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}
