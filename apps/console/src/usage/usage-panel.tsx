// Usage over time, for an agent or for the workspace: the totals, the charts (loaded lazily) and the
// same figures as a table, per hour over the last day or per day over the last 30 days. A range without
// runs says how to make some instead of drawing empty charts.
import { useQuery } from '@tanstack/react-query';
import { lazy, type ReactNode, Suspense, useId, useState } from 'react';
import { problemOf } from '../api/api-problem';
import { EmptyState } from '../ui/empty-state';
import { ProblemAlert } from '../ui/problem-alert';
import type { UsageBucket, UsageReport, WorkspaceUsageReport } from './usage-api';
import { formatCost, usageSeries } from './usage-series';
import { UsageTable } from './usage-table';

// recharts is larger than the rest of a page: it loads with the first chart, never with the console.
const UsageCharts = lazy(() => import('./usage-charts'));

const RANGES: { bucket: UsageBucket; label: string }[] = [
  { bucket: 'hour', label: 'Per hour, last 24 hours' },
  { bucket: 'day', label: 'Per day, last 30 days' },
];

const formatTime = (iso: string) => new Date(iso).toLocaleString();

function Totals({ totals }: { totals: UsageReport['totals'] }) {
  return (
    <dl className="figures">
      <dt>Runs</dt>
      <dd>{totals.runs}</dd>
      <dt>Failed runs</dt>
      <dd>{totals.errors}</dd>
      <dt>Median duration</dt>
      <dd>{totals.duration_p50_ms === null ? '—' : `${Math.round(totals.duration_p50_ms)} ms`}</dd>
      <dt>Input tokens</dt>
      <dd>{totals.input_tokens}</dd>
      <dt>Output tokens</dt>
      <dd>{totals.output_tokens}</dd>
      <dt>Cost</dt>
      <dd>{formatCost(totals.cost_usd)}</dd>
    </dl>
  );
}

export function UsagePanel<R extends UsageReport | WorkspaceUsageReport>(props: {
  heading: string;
  /** The heading's level: a page's own title, or a section of one. */
  level: 1 | 2;
  queryKey: (bucket: UsageBucket) => readonly unknown[];
  read: (bucket: UsageBucket) => Promise<R>;
  /** What the report adds that only this panel's kind has (an agent's online scores). */
  extra?: (report: R) => ReactNode;
  /** What the empty state says when the range has no runs: how to make the first. */
  empty: ReactNode;
}) {
  const [bucket, setBucket] = useState<UsageBucket>('hour');
  const id = useId();
  const usage = useQuery({ queryKey: props.queryKey(bucket), queryFn: () => props.read(bucket) });
  const Heading = props.level === 1 ? 'h1' : 'h2';
  const points = usage.data ? usageSeries(usage.data) : undefined;
  return (
    <section aria-labelledby={`${id}-heading`} className="usage">
      <div className="page-head">
        <Heading id={`${id}-heading`}>{props.heading}</Heading>
        <label htmlFor={`${id}-range`} className="visually-hidden">
          Range
        </label>
        <select id={`${id}-range`} value={bucket} onChange={(event) => setBucket(event.target.value as UsageBucket)}>
          {RANGES.map((range) => (
            <option key={range.bucket} value={range.bucket}>
              {range.label}
            </option>
          ))}
        </select>
      </div>
      {usage.error && <ProblemAlert problem={problemOf(usage.error)} />}
      {!usage.data && !usage.error && <p aria-busy="true">Loading…</p>}
      {usage.data?.totals.runs === 0 && <EmptyState title="No usage yet">{props.empty}</EmptyState>}
      {usage.data && points && usage.data.totals.runs > 0 && (
        <>
          <Totals totals={usage.data.totals} />
          <Suspense fallback={<p aria-busy="true">Loading the charts…</p>}>
            <UsageCharts points={points} bucket={usage.data.bucket} />
          </Suspense>
          <UsageTable points={points} bucket={usage.data.bucket} />
          {props.extra?.(usage.data)}
        </>
      )}
      {usage.data && (
        <p className="note">
          From {formatTime(usage.data.from)} to {formatTime(usage.data.to)}, per {usage.data.bucket} (UTC).
        </p>
      )}
    </section>
  );
}
