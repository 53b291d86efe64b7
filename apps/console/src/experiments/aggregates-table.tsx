// The experiment's figures per version and scorer: each scorer's mean with its 95% confidence interval,
// how many scores it is over and how many runs it could not grade; and per version its runs, latency
// and tokens.
import { formatScore } from '../scorers/scorer-test-panel';
import type { VersionAggregate } from './experiment-api';

type ScorerAggregate = VersionAggregate['scorers'][number];

const formatMs = (ms: number | null) => (ms === null ? '—' : `${Math.round(ms)} ms`);
const formatCount = (value: number | null) => (value === null ? '—' : String(Math.round(value)));

function Interval({ ci }: { ci: ScorerAggregate['ci'] }) {
  if (!ci) return <span className="note">—</span>;
  return (
    <>
      {formatScore(ci.low)}–{formatScore(ci.high)}
      <span className="note">
        {' '}
        (over {ci.n} {ci.unit}s)
      </span>
    </>
  );
}

export function AggregatesTable({ aggregates }: { aggregates: VersionAggregate[] }) {
  return (
    <table>
      <caption>Scores per version</caption>
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Scorer</th>
          <th scope="col">Mean</th>
          <th scope="col">95% interval</th>
          <th scope="col">Scores</th>
          <th scope="col">Not graded</th>
        </tr>
      </thead>
      <tbody>
        {aggregates.flatMap((version) =>
          version.scorers.map((scorer) => (
            <tr key={`${version.agent_version}:${scorer.name}`}>
              <th scope="row">v{version.agent_version}</th>
              <td>{scorer.name}</td>
              <td>{formatScore(scorer.mean)}</td>
              <td>
                <Interval ci={scorer.ci} />
              </td>
              <td>{scorer.n}</td>
              <td>{scorer.null_count}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

export function VersionFiguresTable({ aggregates }: { aggregates: VersionAggregate[] }) {
  return (
    <table>
      <caption>Runs per version</caption>
      <thead>
        <tr>
          <th scope="col">Version</th>
          <th scope="col">Runs</th>
          <th scope="col">Scored</th>
          <th scope="col">Failed</th>
          <th scope="col">Mean latency</th>
          <th scope="col">Median latency</th>
          <th scope="col">95th percentile latency</th>
          <th scope="col">Mean tokens</th>
        </tr>
      </thead>
      <tbody>
        {aggregates.map((version) => (
          <tr key={version.agent_version}>
            <th scope="row">v{version.agent_version}</th>
            <td>{version.runs}</td>
            <td>{version.scored}</td>
            <td>{version.failed}</td>
            <td>{formatMs(version.latency_ms.mean)}</td>
            <td>{formatMs(version.latency_ms.p50)}</td>
            <td>{formatMs(version.latency_ms.p95)}</td>
            <td>{formatCount(version.tokens.mean)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
