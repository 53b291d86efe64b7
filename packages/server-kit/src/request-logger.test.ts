import { createServer } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createLogger } from './logger.js';
import { redactQueryParams, requestLogger } from './request-logger.js';

const SECRETS = new Set(['hub.verify_token']);

describe('redactQueryParams', () => {
  it('replaces the value of a secret parameter and keeps the rest of the URL', () => {
    expect(redactQueryParams('/hook?hub.mode=subscribe&hub.verify_token=s3cret&hub.challenge=42', SECRETS)).toBe(
      '/hook?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=42',
    );
  });

  it.each([
    ['a percent-encoded name', '/hook?hub%2Everify_token=s3cret'],
    ['a name in another case', '/hook?HUB.Verify_Token=s3cret'],
    ['a repeated parameter', '/hook?hub.verify_token=s3cret&hub.verify_token=s3cret'],
    ['an array-style name', '/hook?hub.verify_token[]=s3cret'],
    ['a malformed escape beside it', '/hook?%ZZ=1&hub.verify_token=s3cret'],
  ])('redacts %s', (_name, url) => {
    expect(redactQueryParams(url, SECRETS)).not.toContain('s3cret');
  });

  it('leaves URLs without a secret parameter as they are', () => {
    expect(redactQueryParams('/hook?hub.mode=subscribe', SECRETS)).toBe('/hook?hub.mode=subscribe');
    expect(redactQueryParams('/health', SECRETS)).toBe('/health');
  });
});

describe('requestLogger levels', () => {
  type Line = { level: number; req: { url: string }; res: { statusCode: number } };

  /** A server answering `status` on every path, behind the request logger, and the lines it logs. */
  async function logsOf(requests: [path: string, status: number][]): Promise<Line[]> {
    const lines: Line[] = [];
    const logger = createLogger({
      name: 'test',
      level: 'debug',
      destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) },
    });
    const log = requestLogger(logger, { probePaths: ['/health'] });
    const server = createServer((req, res) => {
      log(req, res);
      res.statusCode = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status'));
      res.end();
    });
    for (const [path, status] of requests) await request(server).get(`${path}?status=${status}`);
    return lines;
  }

  it('logs a probe at debug, its 503 while the service starts too, and a fault there as an error', async () => {
    const lines = await logsOf([
      ['/health', 503],
      ['/health', 200],
      ['/health', 500],
    ]);
    expect(lines.map((line) => [line.res.statusCode, line.level])).toEqual([
      [503, 20],
      [200, 20],
      [500, 50],
    ]);
  });

  it('logs other requests at info, warn for a refusal or a 503, and error for a fault', async () => {
    const lines = await logsOf([
      ['/agent/run', 200],
      ['/agent/run', 404],
      ['/agent/run', 503],
      ['/healthy', 503],
      ['/agent/run', 500],
    ]);
    expect(lines.map((line) => line.level)).toEqual([30, 40, 40, 40, 50]);
  });
});
