import { z } from 'zod';
import type { EnvDocs } from '../env-docs.js';
import { ZPort } from '../env-fields.js';
import type { MetricsSettings } from './metrics-listener.js';

/** The metrics listener's variables, the same on both services: off unless METRICS_PORT is set. */
export const METRICS_ENV_FIELDS = {
  METRICS_PORT: ZPort.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
};

export const METRICS_ENV_DOCS: EnvDocs<typeof METRICS_ENV_FIELDS> = {
  METRICS_PORT: {
    description:
      'Serves Prometheus metrics at `GET /metrics` on a listener of its own on this port (`0`: any free port, logged as `serving metrics`); unset, nothing listens (the engine still keeps its counters in memory, a few increments per run). Under `pnpm start` the manager takes this port and the engine the next one (`0`: each any free port). See [Metrics](/operations/metrics)',
    default: 'none (no metrics)',
  },
  METRICS_HOST: {
    description:
      "Interface of the metrics listener; set the pod's address or `0.0.0.0` for a scraper in the cluster, and keep the port off any ingress",
  },
};

export function readMetricsSettings(parsed: {
  METRICS_PORT?: number | undefined;
  METRICS_HOST: string;
}): MetricsSettings {
  return parsed.METRICS_PORT === undefined ? undefined : { port: parsed.METRICS_PORT, host: parsed.METRICS_HOST };
}
