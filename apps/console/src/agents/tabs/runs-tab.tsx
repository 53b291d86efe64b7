import { AgentRuns } from '../agent-activity';
import { useAgentOfPage } from '../agent-of-page';

export function RunsTab() {
  return <AgentRuns agentId={useAgentOfPage().id} />;
}
