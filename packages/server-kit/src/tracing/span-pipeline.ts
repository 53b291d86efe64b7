// A tracer provider feeding one span processor. Its spans are batched (here, or in the export thread
// of span-export-thread.ts) so that export never sits on a request's path.
import type { Tracer } from '@opentelemetry/api';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

const EXPORT_DELAY_MS = 1000;

export type SpanPipeline = {
  tracer: Tracer;
  /** Sends every span already ended, then stops the exporter: nothing ended before this is lost. */
  shutdown: () => Promise<void>;
};

/** Spans queued as they end and sent in batches, a second apart (the SDK's default is five): traces show up while a person still looks. */
export function createBatchSpanProcessor(exporter: SpanExporter): SpanProcessor {
  return new BatchSpanProcessor({ exporter, scheduledDelayMillis: EXPORT_DELAY_MS });
}

/** What every span of a pipeline says of its service; the export thread rebuilds it from the same values. */
export function pipelineResource(serviceName: string, attributes: Record<string, string> = {}): Resource {
  return resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName, ...attributes });
}

export function createSpanPipeline(options: {
  serviceName: string;
  processor: SpanProcessor;
  attributes?: Record<string, string>;
}): SpanPipeline {
  const provider = new TracerProvider({
    resource: pipelineResource(options.serviceName, options.attributes),
    spanProcessors: [options.processor],
  });
  return {
    tracer: provider.getTracer('agentplane'),
    shutdown: async () => {
      await provider.forceFlush();
      await provider.shutdown();
    },
  };
}
