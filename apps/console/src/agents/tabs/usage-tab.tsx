import { AgentUsagePanel } from '../../usage/agent-usage';
import { useAgentOfPage } from '../agent-of-page';

export function UsageTab() {
  return <AgentUsagePanel agentId={useAgentOfPage().id} />;
}
