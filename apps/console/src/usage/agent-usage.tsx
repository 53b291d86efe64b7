// An agent's usage over time, from GET /agents/{id}/usage.

import { getAgentUsage, usageKeys } from './usage-api';
import { UsagePanel } from './usage-panel';

export function AgentUsagePanel({ agentId }: { agentId: string }) {
  return (
    <UsagePanel
      heading="Usage"
      level={2}
      queryKey={(bucket) => usageKeys.agent(agentId, bucket)}
      read={(bucket) => getAgentUsage(agentId, bucket)}
    />
  );
}
