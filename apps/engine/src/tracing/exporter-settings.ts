// Where each observability provider takes OTLP/HTTP traces, and how it wants to be authenticated.
import type { TObservabilityConfig } from '@agentplane/contracts';
import type { OtlpProtocol } from '@agentplane/server-kit';

export type TenantExporterSettings = { url: string; protocol: OtlpProtocol; headers: Record<string, string> };

// Langfuse serves OTLP under its public API, behind Basic auth with the project's key pair; version 4
// of its ingestion makes the traces show at once instead of minutes later.
const LANGFUSE_TRACES_PATH = '/api/public/otel/v1/traces';

export function tenantExporterSettings(config: TObservabilityConfig): TenantExporterSettings {
  switch (config.provider) {
    case 'OTLP':
      return { url: config.endpoint, protocol: config.protocol, headers: config.headers };
    case 'LANGFUSE': {
      const credentials = Buffer.from(`${config.public_key}:${config.secret_key}`).toString('base64');
      return {
        url: `${config.host.replace(/\/+$/, '')}${LANGFUSE_TRACES_PATH}`,
        protocol: 'http/protobuf',
        headers: { Authorization: `Basic ${credentials}`, 'x-langfuse-ingestion-version': '4' },
      };
    }
    case 'PHOENIX':
      return {
        url: config.endpoint,
        protocol: 'http/protobuf',
        headers: config.api_key === undefined ? {} : { Authorization: `Bearer ${config.api_key}` },
      };
  }
}
