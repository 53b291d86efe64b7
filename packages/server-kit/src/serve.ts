import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { armExitDeadline } from './exit-deadline.js';

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
// After the grace period: onClose (pools, listeners) and the last log lines get this long, then the process ends.
const EXIT_DEADLINE_AFTER_GRACE_MS = 5_000;

export type ServeOptions = {
  port: number;
  host?: string;
  logger: Logger;
  /** How long in-flight requests may take to finish once shutdown starts. */
  shutdownTimeoutMs?: number;
  /**
   * Ends the work that holds requests open (an engine's runs) once the server stops accepting, within
   * the shutdown timeout it is given. Requests still open after it get what is left of that timeout,
   * and at least a second to write their last bytes.
   */
  drain?: (timeoutMs: number) => Promise<void>;
  /** Runs after the last connection closed: release the database and other resources here. */
  onClose?: () => Promise<void>;
  /** Exit the process on SIGTERM/SIGINT after a graceful shutdown (servers: yes; tests: no). */
  handleSignals?: boolean;
};

export type RunningServer = {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (up to the timeout), then runs onClose. */
  shutdown: () => Promise<void>;
};

/**
 * Listens on `options.port` (0: any free port), then builds the handler with the URL it got, so that
 * a service started on port 0 can still name itself (the manager's default token issuer).
 */
export async function serve(
  handlerFor: (listening: { url: string; port: number }) => RequestListener,
  options: ServeOptions,
): Promise<RunningServer> {
  const server = createServer();
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host && options.host !== '0.0.0.0' ? options.host : '127.0.0.1'}:${port}`;
  // Attached in the same turn as 'listening', so no request can arrive before the handler.
  server.on('request', handlerFor({ url, port }));
  options.logger.info({ url }, 'listening');
  // A supervisor that started this service with an IPC channel (the launcher, tests) learns its URL,
  // so it can start it on port 0 instead of guessing a free port that someone may take first.
  if (process.send && process.connected) process.send({ type: 'listening', url });

  let shuttingDown: Promise<void> | undefined;
  const shutdown = () => {
    shuttingDown ??= closeGracefully(server, options);
    return shuttingDown;
  };

  if (options.handleSignals) {
    const onSignal = (signal: NodeJS.Signals) => {
      if (shuttingDown !== undefined) {
        options.logger.warn({ signal }, 'second signal: exiting at once');
        process.exit(1);
      }
      const deadlineMs = (options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS) + EXIT_DEADLINE_AFTER_GRACE_MS;
      armExitDeadline(deadlineMs);
      options.logger.info({ signal, deadline_ms: deadlineMs }, 'shutting down');
      shutdown().then(
        () => process.exit(0),
        (error: unknown) => {
          options.logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    // A supervisor (the local launcher) gives its services a stdin pipe: when the supervisor dies,
    // even by SIGKILL, the pipe closes and the service shuts down instead of living on orphaned.
    if (process.env.AGENTPLANE_EXIT_WITH_PARENT === '1') {
      process.stdin.on('end', () => onSignal('SIGTERM')).resume();
    }
  }
  return { server, url, shutdown };
}

async function closeGracefully(server: Server, options: ServeOptions): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const started = Date.now();
  await options.drain?.(timeoutMs);
  const left = Math.max(timeoutMs - (Date.now() - started), options.drain === undefined ? 0 : 1000);
  const timer = setTimeout(() => {
    options.logger.warn('in-flight requests did not finish in time: closing their connections');
    server.closeAllConnections();
  }, left);
  try {
    await closed;
  } finally {
    clearTimeout(timer);
  }
  await options.onClose?.();
}
