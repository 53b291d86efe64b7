import { z } from 'zod';
import type { EnvVarDoc } from './env-docs.js';

export const ZPort = z.coerce.number().int().min(0).max(65_535);
export const ZLogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

export const LOG_LEVEL_DOC: EnvVarDoc = {
  description:
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` (pino JSON logs, one line per request without headers; secrets are redacted)',
};
