// A loopback address where nothing answers: a listener that resets every connection at once. The test
// holds the port until it releases it, so no other process can bind it and answer in the meantime, as
// could happen to a port probed free and closed again.
import { createServer } from 'node:net';
import { listenOnLoopback } from '@agentplane/testing';

export type RefusingPort = { origin: string; release: () => Promise<void> };

export async function holdRefusingPort(): Promise<RefusingPort> {
  const server = createServer((socket) => socket.resetAndDestroy());
  return {
    origin: (await listenOnLoopback(server)).origin,
    release: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
