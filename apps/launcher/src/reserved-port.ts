import { once } from 'node:events';
import { createServer } from 'node:net';

export type ReservedPort = { port: number; release: () => Promise<void> };

/**
 * A free port, held by a listener of ours until release(): for a service whose port another service
 * must be told before it starts. Released just before the service is started, it is free again for it.
 */
export async function reservePort(host: string): Promise<ReservedPort> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('a TCP listener has no port');
  return {
    port: address.port,
    release: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
