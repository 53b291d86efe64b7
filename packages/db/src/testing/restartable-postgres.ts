// A PostgreSQL server of one test's own, which the test stops and starts again (same data, same port)
// to see what a real restart does to its clients. The suite's shared server is never restarted.
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPrisma, type Db } from '../client.js';
import { ensureDatabase, findFreePort } from '../embedded/database-admin.js';
import { type RunningPostgres, startEmbeddedPostgres } from '../embedded/embedded-postgres.js';
import { migrate } from '../migrations/migrate.js';

export type RestartablePostgres = {
  /** The migrated database, as superuser; its client reconnects after a restart as any client would. */
  database: { url: string; prisma: Db };
  /** Stops the server (a fast shutdown: every connection is ended). */
  stop: () => Promise<void>;
  /** Starts it again on the same port with the same data. */
  start: () => Promise<void>;
  /** Stops it for good and removes its data. */
  close: () => Promise<void>;
};

export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const port = await findFreePort();
  // Directly under tmp: as root the postgres OS user must be able to reach it.
  const dataDir = path.join(tmpdir(), `agentplane-restartable-pg-${process.pid}-${port}`);
  const run = () => startEmbeddedPostgres({ dataDir, port, persistent: true });
  let server: RunningPostgres | undefined = await run();
  const url = await ensureDatabase(server.url, 'agentplane');
  await migrate({ databaseUrl: url });
  // Its idle connections die with every stop: that is the test's doing, not news to report.
  const prisma = createPrisma(url, { maxConnections: 2, onPoolError: () => {} });
  const stop = async () => {
    await server?.stop();
    server = undefined;
  };
  return {
    database: { url, prisma },
    stop,
    start: async () => {
      server ??= await run();
    },
    close: async () => {
      await prisma.$disconnect();
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
