import { z } from 'zod';
import { ZPort } from '../env-fields.js';
import type { MetricsSettings } from './metrics-listener.js';

/** The metrics listener's variables, the same on both services: off unless METRICS_PORT is set. */
export const METRICS_ENV_FIELDS = {
  METRICS_PORT: ZPort.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
};

export function readMetricsSettings(parsed: {
  METRICS_PORT?: number | undefined;
  METRICS_HOST: string;
}): MetricsSettings {
  return parsed.METRICS_PORT === undefined ? undefined : { port: parsed.METRICS_PORT, host: parsed.METRICS_HOST };
}
