// An agent's usage over time, from GET /agents/{id}/usage, with its online scorers' means: its page's Usage tab.
import { Link } from 'react-router';
import { ScorerUsageTable } from './scorer-usage-table';
import { getAgentUsage, usageKeys } from './usage-api';
import { UsagePanel } from './usage-panel';

export function AgentUsagePanel({ agentId }: { agentId: string }) {
  return (
    <UsagePanel
      heading="Usage"
      level={2}
      queryKey={(bucket) => usageKeys.agent(agentId, bucket)}
      read={(bucket) => getAgentUsage(agentId, bucket)}
      extra={(report) => <ScorerUsageTable scores={report.scores} />}
      empty={
        <p>
          Runs, tokens and cost count from the agent's first run: send it a message in the{' '}
          <Link to={`/agents/${agentId}/playground`}>playground</Link>.
        </p>
      }
    />
  );
}
