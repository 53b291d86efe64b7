// Benchmark 1: an authenticated single-resource read through the manager, next to the bare baseline.
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@agentplane/db/embedded';
import { type LoadResult, runLoad } from './load.js';
import { ManagerClient, whatsapp } from './manager-client.js';
import { startService } from './service-process.js';

export type ReadComparison = { manager: LoadResult; bare: LoadResult; ratio: number };

export async function benchManagerRead(options: {
  managerUrl: string;
  databaseUrl: string;
  durationSeconds: number;
  connections: number;
}): Promise<ReadComparison> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const integration = await client.send<{ id: string }>('POST', '/api/v1/integrations/', whatsapp());
  const path = `/integrations/${integration.id}`;

  const bare = await startService(
    fileURLToPath(new URL('./bare-server.js', import.meta.url)),
    { DATABASE_URL: options.databaseUrl },
    '/health',
    await findFreePort(),
  );
  try {
    const load = { connections: options.connections, durationSeconds: options.durationSeconds };
    // A short warm-up of each, so JIT and pools are in their steady state when measured.
    await runLoad({ ...load, durationSeconds: 2, url: `${options.managerUrl}/api/v1${path}`, headers: client.headers });
    await runLoad({ ...load, durationSeconds: 2, url: bare.url + path });
    const manager = await runLoad({ ...load, url: `${options.managerUrl}/api/v1${path}`, headers: client.headers });
    const baseline = await runLoad({ ...load, url: bare.url + path });
    if (manager.non2xx + manager.errors > 0) throw new Error(`manager answered errors: ${JSON.stringify(manager)}`);
    return { manager, bare: baseline, ratio: manager.requestsPerSecond / baseline.requestsPerSecond };
  } finally {
    await bare.stop();
  }
}
