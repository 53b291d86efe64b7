// A dedicated connection that LISTENs for the manager's `NOTIFY engine_config_changed, '<agent id>'`,
// reconnecting with backoff when it is lost. On every (re)connect it reports a change, because
// notifications sent while it was away are gone.
import type { Logger } from '@agentplane/server-kit';
import pg from 'pg';

export const CONFIG_CHANNEL = 'engine_config_changed';

export type ConfigListenerOptions = {
  databaseUrl: string;
  agentId: string;
  onChange: () => void;
  logger: Logger;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
};

export function listenForConfigChanges({
  databaseUrl,
  agentId,
  onChange,
  logger,
  retryDelayMs = 500,
  maxRetryDelayMs = 30_000,
}: ConfigListenerOptions): { stop: () => Promise<void> } {
  let client: pg.Client | undefined;
  let stopped = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;

  const scheduleReconnect = () => {
    if (stopped || retryTimer !== undefined) return;
    const delay = Math.min(retryDelayMs * 2 ** failures, maxRetryDelayMs);
    failures++;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delay);
  };

  const connect = async () => {
    const candidate = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000, keepAlive: true });
    let lost = false;
    const drop = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (client === candidate) {
        client = undefined;
        logger.warn({ err: error }, 'lost the LISTEN connection; reconnecting');
      }
      candidate.end().catch(() => undefined);
      scheduleReconnect();
    };
    candidate.on('error', drop);
    candidate.on('end', () => drop());
    candidate.on('notification', (message) => {
      if (message.channel === CONFIG_CHANNEL && message.payload === agentId) onChange();
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${CONFIG_CHANNEL}`);
    } catch (error) {
      logger.debug({ err: error }, 'could not LISTEN for config changes');
      drop(error as Error);
      return;
    }
    if (stopped) {
      await candidate.end();
      return;
    }
    client = candidate;
    if (failures > 0) logger.info('LISTEN connection restored');
    failures = 0;
    onChange();
  };

  void connect();

  return {
    stop: async () => {
      stopped = true;
      clearTimeout(retryTimer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
