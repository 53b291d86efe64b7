// An agent's online scores over a usage report's range: each scorer's mean, over how many runs, and how
// many it could not grade.
import type { Schemas } from '../api/api-client';
import { formatScore } from '../scorers/scorer-test-panel';

export function ScorerUsageTable({ scores }: { scores: Schemas['ScorerUsage'][] }) {
  if (scores.length === 0) return null;
  return (
    <table>
      <caption>Online scores</caption>
      <thead>
        <tr>
          <th scope="col">Scorer</th>
          <th scope="col">Mean</th>
          <th scope="col">Runs scored</th>
          <th scope="col">Not graded</th>
        </tr>
      </thead>
      <tbody>
        {scores.map((score) => (
          <tr key={score.name}>
            <th scope="row">{score.name}</th>
            <td>{formatScore(score.mean)}</td>
            <td>{score.n}</td>
            <td>{score.null_count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
