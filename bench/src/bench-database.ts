// A database of the bench's own: BENCH_DATABASE_URL's server, or an embedded PostgreSQL thrown away after.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrate } from '@agentplane/db';
import { ensureDatabase, findFreePort, startEmbeddedPostgres } from '@agentplane/db/embedded';

export type BenchDatabase = { url: string; stop: () => Promise<void> };

export async function startBenchDatabase(): Promise<BenchDatabase> {
  const name = `agentplane_bench_${Date.now()}`;
  if (process.env.BENCH_DATABASE_URL) {
    const url = await ensureDatabase(process.env.BENCH_DATABASE_URL, name);
    await migrate({ databaseUrl: url });
    return { url, stop: async () => {} };
  }
  const port = await findFreePort();
  const server = await startEmbeddedPostgres({
    dataDir: path.join(tmpdir(), `agentplane-bench-pg-${process.pid}`),
    port,
    persistent: false,
  });
  const url = await ensureDatabase(server.url, name);
  await migrate({ databaseUrl: url });
  return { url, stop: server.stop };
}
