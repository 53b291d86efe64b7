// An OpenAI-compatible endpoint that accepts requests and never answers, so that runs stay open.
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startStalledModel(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  server.maxConnections = 5000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
