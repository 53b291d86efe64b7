// What the agent has been doing: its recent runs and its usage, as the manager records them.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { EmptyState } from '../ui/empty-state';
import { agentKeys, getAgentUsage, listAgentRuns } from './agent-api';

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
            </tr>
          </thead>
          <tbody>
            {runs.data.items.map((run) => (
              <tr key={run.id}>
                <td>{formatTime(run.started_at ?? run.created_at)}</td>
                <td>{run.status}</td>
                <td>{run.source}</td>
                <td>{run.thread_id}</td>
                <td>{run.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function AgentUsage({ agentId }: { agentId: string }) {
  const usage = useQuery({ queryKey: agentKeys.usage(agentId), queryFn: () => getAgentUsage(agentId) });
  const totals = usage.data?.totals;
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage</h2>
      {totals?.runs === 0 && (
        <EmptyState title="No usage yet">
          <p>
            Runs, tokens and cost count from the agent's first run: send it a message in the{' '}
            <Link to={`/agents/${agentId}/playground`}>playground</Link>.
          </p>
        </EmptyState>
      )}
      {totals && totals.runs > 0 && (
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
          <dd>{totals.cost_usd === null ? '—' : `$${totals.cost_usd.toFixed(4)}`}</dd>
        </dl>
      )}
      {usage.data && (
        <p className="note">
          From {formatTime(usage.data.from)} to {formatTime(usage.data.to)}, per {usage.data.bucket}.
        </p>
      )}
    </section>
  );
}
