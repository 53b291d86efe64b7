// The agents of the workspace, a page at a time through the API's limit and offset: a workspace of
// thousands of agents costs one small request and one small table per page.
import { Link, useNavigate } from 'react-router';
import { useRole } from '../session/use-me';
import { EmptyState } from '../ui/empty-state';
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
  const create = () => void navigate('/agents/new');
  return (
    <section>
      <div className="page-head">
        <h1>Agents</h1>
        <button type="button" disabled={!canWrite} onClick={create}>
          Create agent
        </button>
      </div>
      <PagedTable
        caption="Agents"
        queryKey={[AGENTS_KEY, 'page']}
        fetchPage={listAgents}
        columns={COLUMNS}
        empty={
          <EmptyState title="No agents yet">
            <p>An agent is a model with its tools and prompt, served by an engine: create one, then chat with it.</p>
            {canWrite ? (
              <button type="button" onClick={create}>
                Create your first agent
              </button>
            ) : (
              <p className="note">A member or admin of this workspace can create one.</p>
            )}
          </EmptyState>
        }
      />
    </section>
  );
}
