// The tracing of one applied config: a tracer whose spans go to the backend the agent's observability
// config names, through the egress policy (the endpoint is the tenant's choice), from the engine's
// span export thread, so that encoding and sending them stays off the runs' event loop. It lives and
// dies with its config's snapshot: a new config gets a new pipeline for the runs that start on it, and
// the old one is flushed and shut down once the last run on the old config ended, so the spans of
// runs in flight during a change all reach the backend they started with.
import type { RunAgentInput } from '@ag-ui/core';
import type { TEngineConfig } from '@agentplane/contracts';
import { createSpanPipeline } from '@agentplane/server-kit';
import type { Context } from '@opentelemetry/api';
import type { SpanExportThread } from './export-thread.js';
import { tenantExporterSettings } from './exporter-settings.js';
import { type RunTrace, startRunTrace } from './run-trace.js';

export type AgentTracing = {
  /** Opens the run's span, under `parent` when the caller sent a traceparent; undefined when tracing is off. */
  startRun: (input: RunAgentInput, parent?: Context) => RunTrace | undefined;
  /** Sends what is left, then shuts the pipeline and its connections down. */
  shutdown: () => Promise<void>;
};

export const TRACING_OFF: AgentTracing = { startRun: () => undefined, shutdown: async () => undefined };

export const ENGINE_SERVICE_NAME = 'agentplane-engine';

export function createAgentTracing(config: TEngineConfig, exportThread: SpanExportThread): AgentTracing {
  const { observability, agent } = config;
  if (observability === null) return TRACING_OFF;
  const attributes = { 'agentplane.agent.id': agent.id, 'agentplane.workspace.id': agent.workspace_id };
  const processor = exportThread.open({
    exporter: tenantExporterSettings(observability),
    serviceName: ENGINE_SERVICE_NAME,
    attributes,
  });
  const pipeline = createSpanPipeline({ serviceName: ENGINE_SERVICE_NAME, attributes, processor });
  const settings = { tracer: pipeline.tracer, agent, captureContent: observability.capture_content };
  return {
    startRun: (input, parent) => startRunTrace(settings, input, parent),
    shutdown: () => pipeline.shutdown(),
  };
}
