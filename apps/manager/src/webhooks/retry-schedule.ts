// When a failed attempt is tried again: exponential backoff with jitter (so that a receiver back from
// an outage is not hit by every delivery at once), never sooner than the receiver's Retry-After asks,
// and not at all past the delivery's give-up time (a day after the event).
export type RetrySettings = { baseMs: number; maxDelayMs: number };

/** The delay before attempt `attempt + 1`, after `attempt` failed ones. */
export function retryDelayMs(attempt: number, settings: RetrySettings, random: () => number = Math.random): number {
  const exponential = Math.min(settings.maxDelayMs, settings.baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(exponential * (0.75 + random() * 0.5));
}

/** The next attempt's time, or undefined when the delivery has run out of time. */
export function nextAttemptAt(
  attempt: number,
  { now, giveUpAt, retryAfterMs }: { now: Date; giveUpAt: Date; retryAfterMs: number | undefined },
  settings: RetrySettings,
): Date | undefined {
  const backoff = retryDelayMs(attempt, settings);
  const delay = Math.min(settings.maxDelayMs, Math.max(backoff, retryAfterMs ?? 0));
  const next = new Date(now.getTime() + delay);
  return next > giveUpAt ? undefined : next;
}
