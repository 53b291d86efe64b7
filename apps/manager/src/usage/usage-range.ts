// The time range of a usage report: defaults that suit each bucket width, and a bounded span so one
// request cannot ask PostgreSQL to bucket years by the hour.
import type { TUsageBucket, TUsageQuery } from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';

export type UsageRange = { from: Date; to: Date; bucket: TUsageBucket };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const DEFAULT_SPAN_MS: Record<TUsageBucket, number> = { hour: DAY_MS, day: 30 * DAY_MS };
// No run predates the epoch, and PostgreSQL refuses the year 0 a query string can name.
const EARLIEST = new Date('1970-01-01T00:00:00Z');
const MAX_SPAN_MS: Record<TUsageBucket, number> = { hour: 31 * DAY_MS, day: 366 * DAY_MS };

function invalid(path: 'from' | 'to', message: string): AppError {
  return new AppError('bad_request', 'The query string is invalid.', { errors: [{ path, message }] });
}

/** From the query, with `to` defaulting to now and `from` to a bucket-sized span before it. */
export function resolveUsageRange(query: TUsageQuery, now: Date): UsageRange {
  const { bucket } = query;
  const to = query.to === undefined ? now : new Date(query.to);
  const from = query.from === undefined ? new Date(to.getTime() - DEFAULT_SPAN_MS[bucket]) : new Date(query.from);
  if (from < EARLIEST) throw invalid('from', `Must not be before ${EARLIEST.toISOString()}`);
  if (from.getTime() >= to.getTime()) throw invalid('from', 'Must be before `to`');
  if (to.getTime() - from.getTime() > MAX_SPAN_MS[bucket]) {
    throw invalid('from', `The range may span at most ${MAX_SPAN_MS[bucket] / DAY_MS} days by ${bucket}`);
  }
  return { from, to, bucket };
}
