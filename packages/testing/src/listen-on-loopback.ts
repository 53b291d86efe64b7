import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';

/** Starts `server` on a port the OS picks (port 0, so no race for a port) on loopback, and says where it is. */
export async function listenOnLoopback(server: Server): Promise<{ port: number; origin: string }> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { port, origin: `http://127.0.0.1:${port}` };
}
