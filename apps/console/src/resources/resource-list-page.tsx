import { Link, useNavigate } from 'react-router';
import { useRole } from '../session/use-me';
import { PagedTable } from '../ui/paged-table';
import { resourceFormOf } from './resource-forms';
import { useResourceKind } from './resource-kinds';

export function ResourceListPage() {
  const kind = useResourceKind();
  const form = resourceFormOf(kind);
  const { canWrite } = useRole();
  const navigate = useNavigate();
  return (
    <section>
      <div className="page-head">
        <h1>{kind.title}</h1>
        <button type="button" disabled={!canWrite} onClick={() => void navigate(`/${kind.route}/new`)}>
          Create {kind.singular}
        </button>
      </div>
      <PagedTable
        caption={kind.title}
        queryKey={[kind.id, 'list']}
        fetchPage={(offset, limit) => form.list({ limit: String(limit), offset: String(offset), secrets: 'masked' })}
        columns={[
          { header: 'Name', cell: (resource) => <Link to={`/${kind.route}/${resource.id}`}>{resource.name}</Link> },
          { header: 'Configuration', cell: form.summary },
          { header: 'Agents using it', cell: (resource) => resource.agent_count },
          { header: 'Updated', cell: (resource) => new Date(resource.updated_at).toLocaleString() },
        ]}
      />
    </section>
  );
}
