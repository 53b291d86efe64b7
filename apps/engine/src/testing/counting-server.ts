// A loopback HTTP server that only counts: the connections that reached it, and the requests it
// answered (with a redirect to `redirectTo` when set). Egress tests use it to prove that a refused
// connection never got as far as a socket.
import { createServer } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';

export type CountingServer = {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  connections: () => number;
  requests: () => number;
  close: () => Promise<void>;
};

export async function startCountingServer(options: { redirectTo?: string } = {}): Promise<CountingServer> {
  let connections = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    if (options.redirectTo === undefined) res.writeHead(404).end();
    else res.writeHead(307, { Location: `${options.redirectTo}${req.url ?? '/'}` }).end();
  });
  server.on('connection', () => connections++);
  const { port, origin } = await listenOnLoopback(server);
  return {
    origin,
    port,
    connections: () => connections,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
