// One LISTEN connection per replica for the news of every run of its agent (events stored, run
// finished, run lost), handed out to whoever follows a run. While that connection is down (and until
// it first connects) every follower is woken every pollMs, all in the same turn so that their reads
// are shared (run-follow-reads.ts): news missed then costs a delay, never a hang. While it is up, only
// news wakes them: every change a follower waits for is notified in the transaction that makes it.
// On every (re)connect everyone is woken: what was sent meanwhile is gone.
// Two more kinds of news ride on the channel, with payloads no follower matches: `queue:<agentId>`
// (a thread's queue may have a run to start) and `cancel:<agentId>:<runId>` (a cancel was asked for).
import type { Logger } from '@agentplane/server-kit';
import { listenOnChannel } from '../listen/listen-on-channel.js';
import { RUN_EVENTS_CHANNEL } from './run-records.js';

export const FOLLOW_POLL_MS = 2000;

export type RunNotifications = {
  /** Resolves at the run's next news, at the next poll while LISTEN is down, or when `signal` aborts. */
  nextChange: (runId: string, signal: AbortSignal) => Promise<void>;
  /** Calls `listener` on queue news and on every (re)connect. */
  onQueueNews: (listener: () => void) => void;
  /** Calls `listener` with the run whose cancel was asked for, and with no run on every (re)connect. */
  onCancelNews: (listener: (runId: string | undefined) => void) => void;
  stop: () => Promise<void>;
};

export const queuePayload = (agentId: string) => `queue:${agentId}`;
export const cancelPayload = (agentId: string, runId: string) => `cancel:${agentId}:${runId}`;

export function startRunNotifications(options: {
  databaseUrl: string;
  agentId: string;
  logger: Logger;
  pollMs?: number;
}): RunNotifications {
  const pollMs = options.pollMs ?? FOLLOW_POLL_MS;
  const waiting = new Map<string, Set<() => void>>();
  const wake = (wakers: Iterable<() => void> | undefined) => {
    for (const waker of [...(wakers ?? [])]) waker();
  };
  const wakeEveryone = () => {
    for (const wakers of [...waiting.values()]) wake(wakers);
  };
  let polling: NodeJS.Timeout | undefined;
  const startPolling = () => {
    polling ??= setInterval(wakeEveryone, pollMs);
  };
  const stopPolling = () => {
    clearInterval(polling);
    polling = undefined;
  };
  const prefix = `${options.agentId}:`;
  const queueNews = queuePayload(options.agentId);
  const cancelPrefix = cancelPayload(options.agentId, '');
  const queueListeners: (() => void)[] = [];
  const cancelListeners: ((runId: string | undefined) => void)[] = [];
  const listener = listenOnChannel({
    databaseUrl: options.databaseUrl,
    channel: RUN_EVENTS_CHANNEL,
    logger: options.logger,
    onNotification: (payload) => {
      if (payload.startsWith(prefix)) wake(waiting.get(payload.slice(prefix.length)));
      else if (payload === queueNews) for (const listener of queueListeners) listener();
      else if (payload.startsWith(cancelPrefix)) {
        for (const listener of cancelListeners) listener(payload.slice(cancelPrefix.length));
      }
    },
    onConnect: () => {
      stopPolling();
      wakeEveryone();
      for (const listener of queueListeners) listener();
      for (const listener of cancelListeners) listener(undefined);
    },
    onDisconnect: startPolling,
  });
  startPolling();

  return {
    nextChange: (runId, signal) =>
      new Promise<void>((resolve) => {
        let wakers = waiting.get(runId);
        if (wakers === undefined) {
          wakers = new Set();
          waiting.set(runId, wakers);
        }
        const done = () => {
          signal.removeEventListener('abort', done);
          wakers.delete(done);
          if (wakers.size === 0 && waiting.get(runId) === wakers) waiting.delete(runId);
          resolve();
        };
        signal.addEventListener('abort', done);
        wakers.add(done);
        if (signal.aborted) done();
      }),
    onQueueNews: (listener) => queueListeners.push(listener),
    onCancelNews: (listener) => cancelListeners.push(listener),
    stop: () => {
      stopPolling();
      return listener.stop();
    },
  };
}
