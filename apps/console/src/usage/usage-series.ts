// A report's buckets as a series with every bucket of its range, empty ones as zero: the manager sends
// only buckets with runs, and a chart of those alone would draw an hour with one run next to one a week
// later as neighbours.
import type { UsageBucket, WorkspaceUsageReport } from './usage-api';

export type UsagePoint = {
  /** The bucket's first instant, ISO (UTC). */
  start: string;
  runs: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  /** Null where no run of the bucket could be priced. */
  cost_usd: number | null;
};

const WIDTH_MS: Record<UsageBucket, number> = { hour: 3_600_000, day: 86_400_000 };

/** The start of the UTC hour or day holding `time`, as date_trunc gives it. */
function truncate(time: number, bucket: UsageBucket): number {
  return time - (time % WIDTH_MS[bucket]);
}

// The workspace's report's buckets: an agent's have more (its scores), which the series leaves out.
export function usageSeries(report: Pick<WorkspaceUsageReport, 'from' | 'to' | 'bucket' | 'buckets'>): UsagePoint[] {
  const byStart = new Map(report.buckets.map((bucket) => [Date.parse(bucket.start), bucket]));
  const points: UsagePoint[] = [];
  const end = Date.parse(report.to);
  for (let start = truncate(Date.parse(report.from), report.bucket); start < end; start += WIDTH_MS[report.bucket]) {
    const bucket = byStart.get(start);
    points.push({
      start: new Date(start).toISOString(),
      runs: bucket?.runs ?? 0,
      errors: bucket?.errors ?? 0,
      input_tokens: bucket?.input_tokens ?? 0,
      output_tokens: bucket?.output_tokens ?? 0,
      cost_usd: bucket?.cost_usd ?? null,
    });
  }
  return points;
}

/** How a bucket's start reads on an axis and in the table: the hour or the day, in UTC. */
export function bucketLabel(start: string, bucket: UsageBucket): string {
  return bucket === 'hour' ? `${start.slice(0, 10)} ${start.slice(11, 16)}` : start.slice(0, 10);
}

/** A cost in US dollars as the usage pages show it; null, where no run could be priced, as a dash. */
export function formatCost(usd: number | null): string {
  return usd === null ? '—' : `$${usd.toFixed(4)}`;
}
