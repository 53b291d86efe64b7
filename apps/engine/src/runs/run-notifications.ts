// One LISTEN connection per replica for the news of every run of its agent (events stored, run
// finished, run lost), handed out to whoever follows a run. A follower also wakes after pollMs on its
// own, so a missed notification (the connection was away, or is not there at all) costs a delay, never
// a hang. On every (re)connect everyone is woken: what was sent meanwhile is gone.
import type { Logger } from '@agentplane/server-kit';
import { listenOnChannel } from '../listen/listen-on-channel.js';
import { RUN_EVENTS_CHANNEL } from './run-records.js';

export const FOLLOW_POLL_MS = 2000;

export type RunNotifications = {
  /** Resolves at the run's next news, after `pollMs`, or when `signal` aborts, whichever comes first. */
  nextChange: (runId: string, signal: AbortSignal) => Promise<void>;
  stop: () => Promise<void>;
};

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
  const listener = listenOnChannel({
    databaseUrl: options.databaseUrl,
    channel: RUN_EVENTS_CHANNEL,
    logger: options.logger,
    onNotification: (payload) => {
      if (payload.startsWith(prefix)) wake(waiting.get(payload.slice(prefix.length)));
    },
    onConnect: () => {
      for (const wakers of waiting.values()) wake(wakers);
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
    stop: () => listener.stop(),
  };
}
