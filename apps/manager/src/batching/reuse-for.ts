// For answers that may be a moment old (readiness): callers while `work` runs share that run, and
// callers within `ttlMs` after it settled get its answer, so a flood of calls costs one run per window.

export type ReuseOptions = {
  ttlMs: number;
  /** Milliseconds; injected so tests decide when a window ends. */
  now: () => number;
};

export function reuseFor<T>(work: () => Promise<T>, { ttlMs, now }: ReuseOptions): () => Promise<T> {
  let current: Promise<T> | undefined;
  // undefined while `current` runs.
  let settledAt: number | undefined;
  return () => {
    if (current !== undefined && (settledAt === undefined || now() - settledAt < ttlMs)) return current;
    settledAt = undefined;
    const run = work().finally(() => {
      if (current === run) settledAt = now();
    });
    current = run;
    return run;
  };
}
