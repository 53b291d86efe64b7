import type { ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.js';
import { serve } from './serve.js';

const logger = createLogger({ name: 'test', level: 'silent' });

/** A handler that holds every request until the test lets it go, and says when one has arrived. */
function heldRequests() {
  let arrived: (response: ServerResponse) => void = () => {};
  const firstArrival = new Promise<ServerResponse>((resolve) => (arrived = resolve));
  return { handler: (_req: unknown, res: ServerResponse) => arrived(res), firstArrival };
}

describe('serve', () => {
  it('lets an in-flight request finish, refuses new connections, then runs onClose', async () => {
    const events: string[] = [];
    const held = heldRequests();
    const running = await serve(() => held.handler, {
      port: 0,
      host: '127.0.0.1',
      logger,
      onClose: async () => {
        events.push('closed');
      },
    });
    const slow = fetch(`${running.url}/slow`).then((response) => response.text());
    const inFlight = await held.firstArrival;
    const shutdown = running.shutdown().then(() => events.push('shutdown'));
    await expect(fetch(`${running.url}/fast`)).rejects.toThrow();
    expect(events).toEqual([]);
    inFlight.end('done');
    expect(await slow).toBe('done');
    await shutdown;
    expect(events).toEqual(['closed', 'shutdown']);
  });

  it('cuts requests that outlive the shutdown timeout', async () => {
    const held = heldRequests();
    const running = await serve(() => held.handler, { port: 0, host: '127.0.0.1', logger, shutdownTimeoutMs: 100 });
    const hanging = fetch(`${running.url}/hang`);
    await held.firstArrival;
    // The handler never answers: shutdown can only finish because the timeout cut the connection.
    await running.shutdown();
    await expect(hanging).rejects.toThrow();
  });
});
