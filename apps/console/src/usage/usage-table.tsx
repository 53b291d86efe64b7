// The charts' figures as a table: what a screen reader reads instead of the pictures, and what anyone
// reads for an exact number. Only buckets with runs are rows: empty hours say nothing (and a range
// without runs shows no table, usage-panel.tsx).
import type { UsageBucket } from './usage-api';
import { bucketLabel, formatCost, type UsagePoint } from './usage-series';

export function UsageTable({ points, bucket }: { points: UsagePoint[]; bucket: UsageBucket }) {
  const rows = points.filter((point) => point.runs > 0);
  return (
    <details className="usage-data">
      <summary>Figures per {bucket}</summary>
      <table>
        <caption>Usage per {bucket} (UTC)</caption>
        <thead>
          <tr>
            <th scope="col">{bucket === 'hour' ? 'Hour' : 'Day'}</th>
            <th scope="col">Runs</th>
            <th scope="col">Errors</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((point) => (
            <tr key={point.start}>
              <th scope="row">{bucketLabel(point.start, bucket)}</th>
              <td>{point.runs}</td>
              <td>{point.errors}</td>
              <td>{point.input_tokens}</td>
              <td>{point.output_tokens}</td>
              <td>{formatCost(point.cost_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
