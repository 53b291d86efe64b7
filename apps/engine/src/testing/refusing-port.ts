// A loopback address where nothing answers: a listener that resets every connection at once. The test
// holds the port until it releases it, so no other process can bind it and answer in the meantime, as
// could happen to a port probed free and closed again.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';

export type RefusingPort = { origin: string; release: () => Promise<void> };

export async function holdRefusingPort(): Promise<RefusingPort> {
  const server = createServer((socket) => socket.resetAndDestroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
