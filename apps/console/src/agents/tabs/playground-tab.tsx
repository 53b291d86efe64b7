// The playground, first thing on an agent's page; an agent no engine serves yet says how to get one.
import { Link } from 'react-router';
import { Playground } from '../../playground/playground';
import { EmptyState } from '../../ui/empty-state';
import { useAgentOfPage } from '../agent-of-page';

export function PlaygroundTab() {
  const agent = useAgentOfPage();
  if (!agent.engine_url) {
    return (
      <EmptyState title="No engine serves this agent yet">
        <p>
          Place it on an engine pool, or give it the URL of its own engine, in its{' '}
          <Link to={`/agents/${agent.id}/settings`}>settings</Link>; then chat with it here.
        </p>
      </EmptyState>
    );
  }
  return <Playground agentId={agent.id} engineUrl={agent.engine_url} />;
}
