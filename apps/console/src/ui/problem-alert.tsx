import { type ApiProblem, fieldNameOf } from '../api/api-problem';

/** Whether the page has a control for the field: its error shows there, not in the alert. */
function shownOnAField(path: string): boolean {
  return document.getElementsByName(fieldNameOf(path)).length > 0;
}

/** A problem the page shows as a whole: its detail, and the field errors no control on the page shows. */
export function ProblemAlert({ problem }: { problem: ApiProblem | undefined }) {
  if (!problem) return null;
  const others = problem.errors.filter((error) => !shownOnAField(error.path));
  return (
    <div role="alert" className="problem">
      <strong>{problem.title}</strong>
      {problem.detail && <p>{problem.detail}</p>}
      {others.length > 0 && (
        <ul>
          {others.map((error) => (
            <li key={`${error.path}:${error.message}`}>
              {error.path}: {error.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
