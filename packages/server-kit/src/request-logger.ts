import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

// An incoming id is kept only when it is short and plain, so a caller cannot inject into log lines.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Logs every request with an id taken from `X-Request-Id` or made up, and echoes it back. */
export function requestLogger(logger: Logger) {
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
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    // A 503 is the service saying it is not ready, not a fault of its code.
    customLogLevel: (_req, res, error) =>
      error || res.statusCode === 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
  });
}
