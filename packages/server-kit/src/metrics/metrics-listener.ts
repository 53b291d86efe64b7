// /metrics on a listener of its own, never on the service's public port: the figures (route names,
// run counts, queue depth) are for the operator's scraper inside the cluster, not for API callers.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export type MetricsSettings = { port: number; host: string } | undefined;

export type MetricsListener = { url: string; close: () => Promise<void> };

export async function startMetricsListener(
  registry: Registry,
  { port, host }: { port: number; host: string },
  logger: Logger,
): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, 'could not collect the metrics');
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Could not collect the metrics\n');
      },
    );
  });
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}/metrics`;
  logger.info({ url }, 'serving metrics');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
