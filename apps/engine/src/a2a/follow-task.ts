// A run followed through its stored events (rejoin-handler.ts, followRun), as the A2A updates its task
// fold makes of them: an async generator for the JSON-RPC stream. Each event waits until the updates
// it made were taken, so a slow client holds the reads back instead of filling memory.
import type { StreamResponse } from '@a2a-js/sdk';
import type { Logger } from '@agentplane/server-kit';
import type { RunStore } from '../runs/recorded-run.js';
import { followRun } from '../runs/rejoin-handler.js';
import type { ThreadCaller } from '../threads/thread-scope.js';
import type { TaskFold } from './task-fold.js';

export async function* followTask(options: {
  store: RunStore;
  runId: string;
  caller: ThreadCaller | undefined;
  /** The seq of the last event the fold has taken in already. */
  after: number;
  fold: TaskFold;
  signal: AbortSignal;
  log: Logger;
}): AsyncGenerator<StreamResponse, void, undefined> {
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  const waiting: StreamResponse[] = [];
  let done = false;
  let wake: (() => void) | undefined;
  let taken: (() => void) | undefined;
  const following = followRun({
    ...options,
    signal,
    stream: {
      sendData: async (_id, data) => {
        waiting.push(...options.fold.apply(data));
        wake?.();
        if (waiting.length === 0 || signal.aborted) return;
        await new Promise<void>((resolve) => {
          taken = resolve;
        });
      },
    },
  }).finally(() => {
    done = true;
    wake?.();
  });
  try {
    for (;;) {
      const next = waiting.shift();
      if (next !== undefined) {
        if (waiting.length === 0) taken?.();
        yield next;
        continue;
      }
      if (done) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    stop.abort();
    taken?.();
    await following;
  }
}
