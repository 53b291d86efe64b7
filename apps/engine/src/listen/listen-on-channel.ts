// A dedicated connection that LISTENs on one of the agent's channels (agent-channels.ts), reconnecting
// with backoff when it is lost. On every (re)connect it calls onConnect, because notifications sent while it was away are gone;
// onDisconnect when a connection that was listening is lost.
import type { Logger } from '@agentplane/server-kit';
import pg from 'pg';
import { type ChannelKind, readAgentChannel } from './agent-channels.js';

export type ChannelListenerOptions = {
  databaseUrl: string;
  agentId: string;
  channel: ChannelKind;
  onNotification: (payload: string) => void;
  onConnect: () => void;
  onDisconnect?: () => void;
  logger: Logger;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
};

export type ChannelListener = { stop: () => Promise<void> };

export function listenOnChannel({
  databaseUrl,
  agentId,
  channel: kind,
  onNotification,
  onConnect,
  onDisconnect,
  logger,
  retryDelayMs = 500,
  maxRetryDelayMs = 30_000,
}: ChannelListenerOptions): ChannelListener {
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
    let channel: string | undefined;
    const drop = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (client === candidate) {
        client = undefined;
        logger.warn({ err: error, channel: kind }, 'lost the LISTEN connection; reconnecting');
        onDisconnect?.();
      }
      candidate.end().catch(() => undefined);
      scheduleReconnect();
    };
    candidate.on('error', drop);
    candidate.on('end', () => drop());
    candidate.on('notification', (message) => {
      if (message.channel === channel) onNotification(message.payload ?? '');
    });
    try {
      await candidate.connect();
      channel = await readAgentChannel(candidate, agentId, kind);
      // A name of the pattern CHANNEL_NAME, checked as it was read: LISTEN takes no bind parameter.
      await candidate.query(`LISTEN ${channel}`);
    } catch (error) {
      logger.debug({ err: error, channel: kind }, 'could not LISTEN');
      drop(error as Error);
      return;
    }
    if (stopped) {
      await candidate.end();
      return;
    }
    client = candidate;
    if (failures > 0) logger.info({ channel: kind }, 'LISTEN connection restored');
    failures = 0;
    onConnect();
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
