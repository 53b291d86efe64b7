// The engine's one LISTEN connection, for the channels of every agent it has loaded (their names come
// from engine_placements(), random per agent: engine-role-names.ts). LISTEN needs no privilege, so it
// runs on the login's own session. Lost, it reconnects with backoff and LISTENs again; every
// subscriber hears of the loss (onDisconnect) and of each (re)connect (onConnect), because whatever was
// notified meanwhile is gone.
import { CHANNEL_NAME } from '@agentplane/db/engine-roles';
import type { Logger } from '@agentplane/server-kit';
import type pg from 'pg';

export type ChannelHandlers = {
  onNotification: (payload: string) => void;
  onConnect: () => void;
  onDisconnect?: () => void;
};

export type ChannelListener = { stop: () => Promise<void> };

export type SharedListener = {
  /** Listens on `channel` (a name of CHANNEL_NAME's pattern) until the returned listener stops. */
  subscribe: (channel: string, handlers: ChannelHandlers) => ChannelListener;
  /** Channels listened on now: what the connection costs the server. */
  channels: () => number;
  stop: () => Promise<void>;
};

export type SharedListenerOptions = {
  connect: () => pg.Client;
  logger: Logger;
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
};

export function startSharedListener({
  connect,
  logger,
  retryDelayMs = 500,
  maxRetryDelayMs = 30_000,
}: SharedListenerOptions): SharedListener {
  const subscribers = new Map<string, Set<ChannelHandlers>>();
  let client: pg.Client | undefined;
  /** The channels the current connection LISTENs on. */
  const listening = new Set<string>();
  let connecting: Promise<void> | undefined;
  let stopped = false;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;

  const each = (channel: string, call: (handlers: ChannelHandlers) => void) => {
    for (const handlers of [...(subscribers.get(channel) ?? [])]) call(handlers);
  };

  const scheduleReconnect = () => {
    if (stopped || retryTimer !== undefined) return;
    const delay = Math.min(retryDelayMs * 2 ** failures, maxRetryDelayMs);
    failures++;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void open();
    }, delay);
  };

  const open = () => {
    connecting ??= (async () => {
      const candidate = connect();
      statements = Promise.resolve();
      let lost = false;
      const drop = (error?: Error) => {
        if (lost) return;
        lost = true;
        if (client === candidate) {
          client = undefined;
          logger.warn({ err: error }, 'lost the LISTEN connection; reconnecting');
          for (const channel of subscribers.keys()) each(channel, (handlers) => handlers.onDisconnect?.());
        }
        candidate.end().catch(() => undefined);
        scheduleReconnect();
      };
      candidate.on('error', drop);
      candidate.on('end', () => drop());
      candidate.on('notification', (message) => each(message.channel, (h) => h.onNotification(message.payload ?? '')));
      try {
        await candidate.connect();
        listening.clear();
        // Channels subscribed while a LISTEN was on its way are taken by the next round.
        for (let fresh = [...subscribers.keys()]; fresh.length > 0; ) {
          await candidate.query(fresh.map((name) => `LISTEN ${name}`).join('; '));
          for (const name of fresh) listening.add(name);
          fresh = [...subscribers.keys()].filter((name) => !listening.has(name));
        }
      } catch (error) {
        logger.debug({ err: error }, 'could not LISTEN');
        drop(error as Error);
        return;
      }
      if (stopped) {
        await candidate.end().catch(() => undefined);
        return;
      }
      client = candidate;
      if (failures > 0) logger.info('LISTEN connection restored');
      failures = 0;
      for (const channel of subscribers.keys()) each(channel, (handlers) => handlers.onConnect());
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  // One statement at a time on the connection: pg queues concurrent ones only with a deprecation warning.
  let statements: Promise<unknown> = Promise.resolve();
  const send = (connection: pg.Client, text: string): Promise<unknown> => {
    const sent = statements.then(() => connection.query(text));
    statements = sent.catch(() => undefined);
    return sent;
  };

  const listenNow = async (channel: string, handlers: ChannelHandlers) => {
    const current = client;
    if (current === undefined) return; // open() LISTENs on every channel, then calls onConnect
    try {
      await send(current, `LISTEN ${channel}`);
      listening.add(channel);
      if (client === current && subscribers.get(channel)?.has(handlers)) handlers.onConnect();
    } catch (error) {
      // The connection is failing: its 'error' handler reconnects, and the reconnect LISTENs again.
      logger.debug({ err: error }, 'could not LISTEN');
    }
  };

  return {
    subscribe: (channel, handlers) => {
      // Checked as it was read from the database: LISTEN takes no bind parameter.
      if (!CHANNEL_NAME.test(channel)) throw new TypeError(`Not a channel name: ${JSON.stringify(channel)}`);
      if (stopped) return { stop: async () => {} };
      let set = subscribers.get(channel);
      const first = set === undefined;
      if (set === undefined) {
        set = new Set();
        subscribers.set(channel, set);
      }
      set.add(handlers);
      if (client === undefined) void open();
      else if (first) void listenNow(channel, handlers);
      else queueMicrotask(() => (client === undefined ? undefined : handlers.onConnect()));
      return {
        stop: async () => {
          const current = subscribers.get(channel);
          if (current === undefined || !current.delete(handlers) || current.size > 0) return;
          subscribers.delete(channel);
          listening.delete(channel);
          if (client !== undefined) await send(client, `UNLISTEN ${channel}`).catch(() => undefined);
        },
      };
    },
    channels: () => subscribers.size,
    stop: async () => {
      stopped = true;
      clearTimeout(retryTimer);
      subscribers.clear();
      await connecting;
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
