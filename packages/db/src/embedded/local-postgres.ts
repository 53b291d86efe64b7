import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDatabase } from './database-admin.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export type LocalPostgres = { databaseUrl: string; stop: () => Promise<void> };

const DEFAULT_PORT = 54329;
const DATABASE_NAME = 'agentplane';

/** Where the local platform keeps its state: `.data/` at the repository root, or AGENTPLANE_DATA_DIR. */
export function localDataDir(): string {
  return process.env.AGENTPLANE_DATA_DIR || fileURLToPath(new URL('../../../../.data', import.meta.url));
}

/**
 * The PostgreSQL of the local platform (`pnpm start`, `pnpm db:migrate` without DATABASE_URL),
 * kept in the local data directory so that restarts keep the data.
 */
export async function startLocalPostgres(log?: (message: string) => void): Promise<LocalPostgres> {
  const port = Number(process.env.EMBEDDED_POSTGRES_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`EMBEDDED_POSTGRES_PORT must be a port number, got "${process.env.EMBEDDED_POSTGRES_PORT}"`);
  }
  const server = await startEmbeddedPostgres({
    dataDir: path.join(localDataDir(), 'postgres'),
    port,
    persistent: true,
    ...(log ? { log } : {}),
  });
  try {
    return { databaseUrl: await ensureDatabase(server.url, DATABASE_NAME), stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
