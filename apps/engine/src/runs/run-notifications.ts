// One LISTEN connection per replica for the news of every run of its agent (events stored, run
// finished, run lost), handed out to whoever follows a run. While that connection is down (and until
// it first connects) every follower is woken every pollMs, all in the same turn so that their reads
// are shared (run-follow-reads.ts): news missed then costs a delay, never a hang. While it is up, only
// news wakes them: every change a follower waits for is notified in the transaction that makes it.
// On every (re)connect everyone is woken: what was sent meanwhile is gone.
// The channel is the agent's own (agent-channels.ts), so payloads name no agent: `run:<runId>` (news of
// a run), `queue` (a thread's queue may have a run to start) and `cancel:<runId>` (a cancel was asked
// for). Whatever arrives only makes the engine read its own rows again, so a forged one costs a read.
import type { ChannelHandlers, ChannelListener } from '../database/shared-listener.js';

export const FOLLOW_POLL_MS = 2000;

export type RunNotifications = {
  /** Resolves at the run's next news, at the next poll while LISTEN is down, or when `signal` aborts. */
  nextChange: (runId: string, signal: AbortSignal) => Promise<void>;
  /** Calls `listener` on queue news and on every (re)connect. */
  onQueueNews: (listener: () => void) => void;
  /** Calls `listener` with the run whose cancel was asked for, and with no run on every (re)connect. */
  onCancelNews: (listener: (runId: string | undefined) => void) => void;
  /** True while the LISTEN connection is up: every news then arrives, and nothing need poll for it. */
  listening: () => boolean;
  stop: () => Promise<void>;
};

// The payloads, as SQL expressions of the notifying statements (run-records.ts notifyRunNews).
export const RUN_NEWS_SQL = (runIdSql: string) => `'run:' || ${runIdSql}`;
export const QUEUE_NEWS_SQL = `'queue'`;
export const CANCEL_NEWS_SQL = (runIdSql: string) => `'cancel:' || ${runIdSql}`;
const RUN_PREFIX = 'run:';
const QUEUE_NEWS = 'queue';
const CANCEL_PREFIX = 'cancel:';

export function startRunNotifications(options: {
  /** Listens on the agent's run channel (shared-listener.ts). */
  listen: (handlers: ChannelHandlers) => ChannelListener;
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
  const queueListeners: (() => void)[] = [];
  const cancelListeners: ((runId: string | undefined) => void)[] = [];
  const listener = options.listen({
    onNotification: (payload) => {
      if (payload.startsWith(RUN_PREFIX)) wake(waiting.get(payload.slice(RUN_PREFIX.length)));
      else if (payload === QUEUE_NEWS) for (const listener of queueListeners) listener();
      else if (payload.startsWith(CANCEL_PREFIX)) {
        for (const listener of cancelListeners) listener(payload.slice(CANCEL_PREFIX.length));
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
    listening: () => polling === undefined,
    stop: () => {
      stopPolling();
      return listener.stop();
    },
  };
}
