// A tracer provider feeding one exporter through a batch processor, so export never sits on a
// request's path: spans are queued when they end and sent in the background.
import type { Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

const EXPORT_DELAY_MS = 1000;

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
  // A second between batches (the SDK's default is five): traces show up while a person still looks.
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName, ...options.attributes }),
    spanProcessors: [new BatchSpanProcessor({ exporter: options.exporter, scheduledDelayMillis: EXPORT_DELAY_MS })],
  });
  return {
    tracer: provider.getTracer('agentplane'),
    shutdown: async () => {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}
