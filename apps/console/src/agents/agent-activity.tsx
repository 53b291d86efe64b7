// What the agent has been doing: its recent runs, as the manager records them, each opening its run view.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Schemas } from '../api/api-client';
import { EmptyState } from '../ui/empty-state';
import { agentKeys, listAgentRuns } from './agent-api';

/** The guardrail rules that fired in a run: which rule, where, what it did and what it found. */
function GuardrailActions({ actions }: { actions: Schemas['GuardrailActionRecord'][] }) {
  if (actions.length === 0) return null;
  return (
    <ul className="guardrail-actions">
      {actions.map((action, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a run's record never reorders, and one rule may fire twice in a millisecond
        <li key={index}>
          {action.guardrail} / {action.rule}: {action.action} at {action.position} ({action.found})
        </li>
      ))}
    </ul>
  );
}

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
              <th scope="col">Thread</th>
              <th scope="col">Error</th>
              <th scope="col">Guardrails</th>
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
                <td>{run.thread_id}</td>
                <td>{run.error ?? ''}</td>
                <td>
                  <GuardrailActions actions={run.guardrail_actions ?? []} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
