// One LISTEN connection per replica for the news of every run of its agent (events stored, run
// finished, run lost), handed out to whoever follows a run. A follower also wakes after pollMs on its
// own, so a missed notification (the connection was away, or is not there at all) costs a delay, never
// a hang. On every (re)connect everyone is woken: what was sent meanwhile is gone.
// Two more kinds of news ride on the channel, with payloads no follower matches: `queue:<agentId>`
// (a thread's queue may have a run to start) and `cancel:<agentId>:<runId>` (a cancel was asked for).
import type { Logger } from '@agentplane/server-kit';
import { listenOnChannel } from '../listen/listen-on-channel.js';
import { RUN_EVENTS_CHANNEL } from './run-records.js';

export const FOLLOW_POLL_MS = 2000;

export type RunNotifications = {
  /** Resolves at the run's next news, after `pollMs`, or when `signal` aborts, whichever comes first. */
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
      for (const wakers of waiting.values()) wake(wakers);
      for (const listener of queueListeners) listener();
      for (const listener of cancelListeners) listener(undefined);
    },
  });

  return {
    nextChange: (runId, signal) =>
      new Promise<void>((resolve) => {
        let wakers = waiting.get(runId);
        if (wakers === undefined) {
          wakers = new Set();
          waiting.set(runId, wakers);
        }
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wakers.delete(done);
          if (wakers.size === 0 && waiting.get(runId) === wakers) waiting.delete(runId);
          resolve();
        };
        const timer = setTimeout(done, pollMs);
        signal.addEventListener('abort', done);
        wakers.add(done);
        if (signal.aborted) done();
      }),
    onQueueNews: (listener) => queueListeners.push(listener),
    onCancelNews: (listener) => cancelListeners.push(listener),
    stop: () => listener.stop(),
  };
}
