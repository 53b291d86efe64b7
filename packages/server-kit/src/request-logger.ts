import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

// An incoming id is kept only when it is short and plain, so a caller cannot inject into log lines.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export type RequestLoggerOptions = {
  /** Query parameters that carry a secret (WhatsApp's `hub.verify_token`): their values never reach the log. */
  secretQueryParams?: string[];
  /**
   * Health probes, which a launcher or an orchestrator polls: logged at debug, their 503 ("not ready
   * yet", as while the service starts) too. A fault there (500) is still an error.
   */
  probePaths?: string[];
};

const pathOf = (req: { originalUrl?: string; url?: string }) => (req.originalUrl ?? req.url ?? '').split('?', 1)[0];

/** A query key as the server reads it: `+` is a space, percent-escapes decoded, `[…]` suffixes dropped. */
function readKey(key: string): string {
  const spaced = key.replaceAll('+', ' ');
  let decoded = spaced;
  try {
    decoded = decodeURIComponent(spaced);
  } catch {
    // A malformed escape is read as written, as the query parser does.
  }
  return decoded.replace(/\[.*$/, '').toLowerCase();
}

/** `url` with the value of each query parameter named in `secrets` (lower case) replaced. */
export function redactQueryParams(url: string, secrets: ReadonlySet<string>): string {
  const start = url.indexOf('?');
  if (start === -1 || secrets.size === 0) return url;
  const parts = url
    .slice(start + 1)
    .split('&')
    .map((part) => {
      const key = part.split('=', 1)[0] ?? '';
      return secrets.has(readKey(key)) ? `${key}=[redacted]` : part;
    });
  return `${url.slice(0, start)}?${parts.join('&')}`;
}

/** Logs every request with an id taken from `X-Request-Id` or made up, and echoes it back. */
export function requestLogger(logger: Logger, options: RequestLoggerOptions = {}) {
  const secrets = new Set((options.secretQueryParams ?? []).map((name) => name.toLowerCase()));
  const probes = new Set(options.probePaths ?? []);
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // One lean line per request: headers are left out, which is cheaper and keeps cookies and tokens out of logs.
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: redactQueryParams(req.url, secrets),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (req, res, error) => {
      if (error || res.statusCode === 500) return 'error';
      if (probes.has(pathOf(req as { originalUrl?: string; url?: string }) ?? '')) return 'debug';
      return res.statusCode >= 400 ? 'warn' : 'info';
    },
  });
}
