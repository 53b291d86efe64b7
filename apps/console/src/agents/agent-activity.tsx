// What the agent has been doing: its recent runs, as the manager records them, each opening its run view.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { GuardrailActions } from '../run-view/guardrail-actions';
import { EmptyState } from '../ui/empty-state';
import { agentKeys, listAgentRuns } from './agent-api';
import { RunScores } from './online-scoring/run-scores';

const formatTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function AgentRuns({ agentId }: { agentId: string }) {
  const runs = useQuery({ queryKey: agentKeys.runs(agentId), queryFn: () => listAgentRuns(agentId) });
  return (
    <section aria-labelledby="runs-heading">
      <h2 id="runs-heading">Recent runs</h2>
      {runs.data?.items.length === 0 && (
        <EmptyState title="No runs yet">
          <p>
            Every answer the agent gives is a run: send it a message in the{' '}
            <Link to={`/agents/${agentId}/playground`}>playground</Link> and it shows here.
          </p>
        </EmptyState>
      )}
      {runs.data && runs.data.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Status</th>
              <th scope="col">Source</th>
              <th scope="col">Version</th>
              <th scope="col">Thread</th>
              <th scope="col">Error</th>
              <th scope="col">Guardrails</th>
              <th scope="col">Scores</th>
            </tr>
          </thead>
          <tbody>
            {runs.data.items.map((run) => (
              <tr key={run.id}>
                <td>
                  <Link to={`/agents/${agentId}/runs/${encodeURIComponent(run.id)}`}>
                    {formatTime(run.started_at ?? run.created_at)}
                  </Link>
                </td>
                <td>{run.status}</td>
                <td>{run.source}</td>
                <td>{run.agent_version === null ? '—' : `v${run.agent_version}`}</td>
                <td>{run.thread_id}</td>
                <td>{run.error ?? ''}</td>
                <td>
                  <GuardrailActions actions={run.guardrail_actions ?? []} />
                </td>
                <td>
                  <RunScores scores={run.scores} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
