// The workspace's usage over time across its agents (GET /usage), and each agent's share of the range.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { getWorkspaceUsage, usageKeys } from './usage-api';
import { UsagePanel } from './usage-panel';
import { formatCost } from './usage-series';

function AgentShares() {
  // The panel's default range: its report is already cached under this key.
  const usage = useQuery({ queryKey: usageKeys.workspace('hour'), queryFn: () => getWorkspaceUsage('hour') });
  const agents = usage.data?.agents ?? [];
  if (agents.length === 0) return null;
  return (
    <section aria-labelledby="usage-agents-heading">
      <h2 id="usage-agents-heading">Per agent, last 24 hours</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Agent</th>
            <th scope="col">Runs</th>
            <th scope="col">Errors</th>
            <th scope="col">Tokens</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {agents.map((agent) => (
            <tr key={agent.agent_id}>
              <th scope="row">
                <Link to={`/agents/${agent.agent_id}`}>{agent.name}</Link>
              </th>
              <td>{agent.runs}</td>
              <td>{agent.errors}</td>
              <td>{agent.input_tokens + agent.output_tokens}</td>
              <td>{formatCost(agent.cost_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function WorkspaceUsagePage() {
  return (
    <>
      <UsagePanel
        heading="Usage"
        level={1}
        queryKey={(bucket) => usageKeys.workspace(bucket)}
        read={(bucket) => getWorkspaceUsage(bucket)}
        empty={
          <p>
            Runs, tokens and cost count from your agents' first runs: open one from the <Link to="/agents">agents</Link>{' '}
            list and send it a message in its playground.
          </p>
        }
      />
      <AgentShares />
    </>
  );
}
