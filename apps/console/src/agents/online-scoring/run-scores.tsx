// The online scorers' grades of one run, as its row in the runs list shows them: a score per scorer,
// its reason on hover and for assistive technology.
import type { Schemas } from '../../api/api-client';
import { formatScore } from '../../scorers/scorer-test-panel';

export function RunScores({ scores }: { scores: Schemas['RunScore'][] }) {
  if (scores.length === 0) return null;
  return (
    <ul className="run-scores">
      {scores.map((score) => (
        <li key={score.name} title={score.reason}>
          {score.name}: {formatScore(score.score)}
          <span className="visually-hidden"> ({score.reason})</span>
        </li>
      ))}
    </ul>
  );
}
