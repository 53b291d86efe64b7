import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.js';
import { serve } from './serve.js';

const logger = createLogger({ name: 'test', level: 'silent' });

describe('serve', () => {
  it('lets an in-flight request finish, refuses new connections, then runs onClose', async () => {
    const events: string[] = [];
    const running = await serve(
      (req, res) => {
        if (req.url === '/slow') setTimeout(() => res.end('done'), 300);
        else res.end('fast');
      },
      {
        port: 0,
        host: '127.0.0.1',
        logger,
        onClose: async () => {
          events.push('closed');
        },
      },
    );
    const slow = fetch(`${running.url}/slow`).then((response) => response.text());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const shutdown = running.shutdown().then(() => events.push('shutdown'));
    await expect(fetch(`${running.url}/fast`)).rejects.toThrow();
    expect(await slow).toBe('done');
    await shutdown;
    expect(events).toEqual(['closed', 'shutdown']);
  });

  it('cuts requests that outlive the shutdown timeout', async () => {
    const running = await serve(() => {}, { port: 0, host: '127.0.0.1', logger, shutdownTimeoutMs: 100 });
    const hanging = fetch(`${running.url}/hang`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await running.shutdown();
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(hanging).rejects.toThrow();
  });
});
