// An OpenAI-compatible endpoint that accepts requests and never answers, so that runs stay open.
import { createServer, type ServerResponse } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';

export async function startStalledModel(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    req.resume();
    held.add(res);
    res.on('close', () => held.delete(res));
  });
  server.maxConnections = 5000;
  const { origin } = await listenOnLoopback(server);
  return {
    baseUrl: `${origin}/v1`,
    close: async () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
