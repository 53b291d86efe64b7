// Database mode: reads the agent's engine_configs row at start, polls its version, and reloads at once
// on `NOTIFY engine_config_changed`. Polling is the guarantee; the notification only makes it fast.

import { engineRoleName } from '@agentplane/db/engine-roles';
import type { Logger } from '@agentplane/server-kit';
import pg from 'pg';
import type { ConfigHolder } from './config-holder.js';
import { listenForConfigChanges } from './listen-for-config-changes.js';
import { isRevokedCredential } from './verify-engine-role.js';

export type DbConfigSourceOptions = {
  agentId: string;
  databaseUrl: string;
  pollMs: number;
  /** LISTEN for the manager's NOTIFY; off behind a pooler that cannot LISTEN (PgBouncer in transaction mode). */
  listen: boolean;
  holder: ConfigHolder;
  logger: Logger;
};

export type ConfigSource = { stop: () => Promise<void> };

// The config is read only when its version is newer than the one already seen, so a poll costs one tiny row.
// Only the agent's own role reads it: connected as anyone else (an engine that found the database down
// at start and so could not check its role then), the engine sees no config at all.
const READ_ROW = `
  SELECT version::text AS version, CASE WHEN version > $2::bigint THEN config END AS config
  FROM engine_configs WHERE agent_id = $1 AND current_user = $3`;

const DB_TIMEOUT_MS = 5000;

export function startDbConfigSource({
  agentId,
  databaseUrl,
  pollMs,
  listen,
  holder,
  logger,
}: DbConfigSourceOptions): ConfigSource {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 1,
    // A poll must fail rather than hang when the database is unreachable, so /health can say so.
    connectionTimeoutMillis: DB_TIMEOUT_MS,
    query_timeout: DB_TIMEOUT_MS,
  });
  pool.on('error', (error) => logger.debug({ err: error }, 'idle database connection lost'));
  const role = engineRoleName(agentId);

  // Versions seen, applied or rejected: a rejected version is not retried, a newer one is.
  let seen = 0n;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const checkOnce = async () => {
    let row: { version: string; config: unknown } | undefined;
    try {
      ({
        rows: [row],
      } = await pool.query<{ version: string; config: unknown }>(READ_ROW, [agentId, seen.toString(), role]));
      holder.setDb('ok');
    } catch (error) {
      holder.setDb('unreachable');
      logger.debug({ err: error }, 'engine config poll failed');
      // The server refusing the login is no outage: the agent was deleted with its role, or its
      // credentials were rotated. Either way this engine must stop serving, not go on with its last config.
      if (isRevokedCredential(error) && seen > 0n) {
        logger.warn("the database refused this engine's credentials (agent deleted or credentials rotated)");
        seen = 0n;
        await holder.remove();
      }
      return;
    }
    if (row === undefined) {
      if (seen > 0n) {
        seen = 0n;
        await holder.remove();
      }
      return;
    }
    const version = BigInt(row.version);
    if (version <= seen || row.config === null) return;
    seen = version;
    await holder.apply(row.config, Number(version));
  };

  const schedule = () => {
    if (!stopped) timer = setTimeout(() => void checkNow(), pollMs);
  };

  /** Checks now, or once more right after the check in progress, which may have read an older row. */
  const checkNow = (): Promise<void> => {
    if (running !== undefined) {
      again = true;
      return running;
    }
    clearTimeout(timer);
    running = (async () => {
      try {
        do {
          again = false;
          await checkOnce();
        } while (again && !stopped);
      } catch (error) {
        logger.error({ err: error }, 'engine config check failed');
      } finally {
        running = undefined;
        schedule();
      }
    })();
    return running;
  };

  const listener = listen
    ? listenForConfigChanges({ databaseUrl, agentId, onChange: () => void checkNow(), logger })
    : undefined;
  void checkNow();

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await listener?.stop();
      await running;
      await pool.end();
    },
  };
}
