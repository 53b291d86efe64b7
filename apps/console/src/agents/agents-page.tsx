// The agents of the workspace, a page at a time through the API's limit and offset: a workspace of
// thousands of agents costs one small request and one small table per page.
import { Link, useNavigate } from 'react-router';
import { useRole } from '../session/use-me';
import { type Column, PagedTable } from '../ui/paged-table';
import { AGENTS_KEY, type AgentListItem, listAgents } from './agent-api';

const COLUMNS: Column<AgentListItem>[] = [
  { header: 'Name', cell: (agent) => <Link to={`/agents/${agent.id}`}>{agent.name}</Link> },
  { header: 'Framework', cell: (agent) => agent.framework },
  { header: 'Config version', cell: (agent) => agent.engine_config_version },
  {
    header: 'Deployment',
    cell: (agent) => (agent.deployment.mode === 'pool' ? `Pool ${agent.deployment.pool}` : 'Dedicated'),
  },
  { header: 'Engine', cell: (agent) => agent.engine_url ?? '—' },
];

export function AgentsPage() {
  const { canWrite } = useRole();
  const navigate = useNavigate();
  return (
    <section>
      <div className="page-head">
        <h1>Agents</h1>
        <button type="button" disabled={!canWrite} onClick={() => void navigate('/agents/new')}>
          Create agent
        </button>
      </div>
      <PagedTable caption="Agents" queryKey={[AGENTS_KEY, 'page']} fetchPage={listAgents} columns={COLUMNS} />
    </section>
  );
}
