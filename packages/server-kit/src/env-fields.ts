import { z } from 'zod';

export const ZPort = z.coerce.number().int().min(0).max(65_535);
export const ZLogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');
