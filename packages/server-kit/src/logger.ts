import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

// Secrets that may ride on a logged object; pino replaces them before the line is written.
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.accessToken',
  '*.verifyToken',
  '*.appSecret',
  '*.secret',
  '*.token',
  '*.apiKey',
];

export function createLogger(options: {
  name: string;
  level?: string;
  /** Where lines go (stdout unless a test captures them). */
  destination?: DestinationStream;
}): Logger {
  return pino(
    { name: options.name, level: options.level ?? 'info', redact: { paths: REDACTED_PATHS, censor: '[redacted]' } },
    options.destination,
  );
}
