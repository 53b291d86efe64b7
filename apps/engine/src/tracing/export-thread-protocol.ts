// What the engine gives its span export thread (span-export-worker.ts), and what the thread tells back.
import type { TenantExporterSettings } from './exporter-settings.js';

/** The thread's own data: ENGINE_EGRESS_ALLOW as parsed, written out again (formatEgressAllowList). */
export type ExportThreadData = { egressAllow: string };

/** One applied config's pipeline, sent with the port its spans come through. */
export type ExportPipelineData = {
  exporter: TenantExporterSettings;
  serviceName: string;
  attributes: Record<string, string>;
};

export type ExportThreadReport =
  | { kind: 'export-failed'; message: string; spans: number }
  | { kind: 'refused'; host: string; address: string; range: string };
