// Scorers tried on a sample a person writes (a reply, and what was expected of it) through POST
// /scorers/test: what each scorer would give, and why, before an experiment or online scoring uses them.
import type { TScorer } from '@agentplane/contracts';
import { useId, useState } from 'react';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { ProblemAlert } from '../ui/problem-alert';
import { type ScorerResult, testScorers } from './scorer-api';

export const formatScore = (score: number | null) => (score === null ? '—' : score.toFixed(2));

function ResultsTable({ results }: { results: ScorerResult[] }) {
  return (
    <table>
      <caption>Test results</caption>
      <thead>
        <tr>
          <th scope="col">Scorer</th>
          <th scope="col">Score</th>
          <th scope="col">Reason</th>
        </tr>
      </thead>
      <tbody>
        {results.map((result) => (
          <tr key={result.name}>
            <th scope="row">{result.name}</th>
            <td>{formatScore(result.score)}</td>
            <td>{result.reason}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ScorerTestPanel(props: { read: () => TScorer[] | undefined }) {
  const id = useId();
  const [input, setInput] = useState('Where is my invoice?');
  const [reply, setReply] = useState('Under Billing > Invoices.');
  const [expected, setExpected] = useState('Under Billing > Invoices.');
  const [results, setResults] = useState<ScorerResult[]>();
  const [problem, setProblem] = useState<ApiProblem>();
  const [busy, setBusy] = useState(false);
  const run = async () => {
    const scorers = props.read();
    if (!scorers) return;
    setBusy(true);
    setProblem(undefined);
    try {
      const sample = {
        input: [{ role: 'user' as const, content: input }],
        observation: { reply, tool_calls: [] },
        expected: expected === '' ? {} : { reply: expected },
      };
      setResults(await testScorers(scorers, sample));
    } catch (error) {
      setResults(undefined);
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset>
      <legend>Try the scorers on a sample</legend>
      <label htmlFor={`${id}-input`}>Sample question</label>
      <input id={`${id}-input`} value={input} onChange={(event) => setInput(event.target.value)} />
      <label htmlFor={`${id}-reply`}>Sample reply</label>
      <textarea id={`${id}-reply`} rows={2} value={reply} onChange={(event) => setReply(event.target.value)} />
      <label htmlFor={`${id}-expected`}>Expected reply</label>
      <input id={`${id}-expected`} value={expected} onChange={(event) => setExpected(event.target.value)} />
      <button type="button" disabled={busy} onClick={() => void run()}>
        Test
      </button>
      <ProblemAlert problem={problem} />
      {results && <ResultsTable results={results} />}
    </fieldset>
  );
}
