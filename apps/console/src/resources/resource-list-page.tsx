import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { problemOf } from '../api/api-problem';
import { useRole } from '../session/use-me';
import { Pager } from '../ui/pager';
import { ProblemAlert } from '../ui/problem-alert';
import { resourceFormOf } from './resource-forms';
import { useResourceKind } from './resource-kinds';

const PAGE_SIZE = 50;

export function ResourceListPage() {
  const kind = useResourceKind();
  const form = resourceFormOf(kind);
  const { canWrite } = useRole();
  const navigate = useNavigate();
  const [offset, setOffset] = useState(0);
  const query = useQuery({
    queryKey: [kind.id, 'list', offset],
    queryFn: () => form.list({ limit: String(PAGE_SIZE), offset: String(offset), secrets: 'masked' }),
    placeholderData: keepPreviousData,
  });
  return (
    <section>
      <div className="page-head">
        <h1>{kind.title}</h1>
        <button type="button" disabled={!canWrite} onClick={() => void navigate(`/${kind.route}/new`)}>
          Create {kind.singular}
        </button>
      </div>
      <ProblemAlert problem={query.error ? problemOf(query.error) : undefined} />
      {query.data && (
        <>
          <table>
            <caption className="visually-hidden">{kind.title}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Configuration</th>
                <th scope="col">Agents using it</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {query.data.items.map((resource) => (
                <tr key={resource.id}>
                  <td>
                    <Link to={`/${kind.route}/${resource.id}`}>{resource.name}</Link>
                  </td>
                  <td>{form.summary(resource)}</td>
                  <td>{resource.agent_count}</td>
                  <td>{new Date(resource.updated_at).toLocaleString()}</td>
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
