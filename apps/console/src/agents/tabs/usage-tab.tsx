import { AgentUsage } from '../agent-activity';
import { useAgentOfPage } from '../agent-of-page';

export function UsageTab() {
  return <AgentUsage agentId={useAgentOfPage().id} />;
}
