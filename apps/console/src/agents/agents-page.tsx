// The agents of the workspace, a page at a time through the API's limit and offset: a workspace of
// thousands of agents costs one small request and one small table per page.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { problemOf } from '../api/api-problem';
import { useRole } from '../session/use-me';
import { Pager } from '../ui/pager';
import { ProblemAlert } from '../ui/problem-alert';
import { agentKeys, listAgents } from './agent-api';

const PAGE_SIZE = 50;

export function AgentsPage() {
  const { canWrite } = useRole();
  const navigate = useNavigate();
  const [offset, setOffset] = useState(0);
  const query = useQuery({
    queryKey: agentKeys.page(offset),
    queryFn: () => listAgents(offset, PAGE_SIZE),
    placeholderData: keepPreviousData,
  });
  return (
    <section>
      <div className="page-head">
        <h1>Agents</h1>
        <button type="button" disabled={!canWrite} onClick={() => void navigate('/agents/new')}>
          Create agent
        </button>
      </div>
      <ProblemAlert problem={query.error ? problemOf(query.error) : undefined} />
      {query.data && (
        <>
          <table>
            <caption className="visually-hidden">Agents</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Framework</th>
                <th scope="col">Config version</th>
                <th scope="col">Engine</th>
              </tr>
            </thead>
            <tbody>
              {query.data.items.map((agent) => (
                <tr key={agent.id}>
                  <td>
                    <Link to={`/agents/${agent.id}`}>{agent.name}</Link>
                  </td>
                  <td>{agent.framework}</td>
                  <td>{agent.engine_config_version}</td>
                  <td>{agent.engine_url ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager offset={offset} limit={PAGE_SIZE} total={query.data.total} onChange={setOffset} />
        </>
      )}
    </section>
  );
}
