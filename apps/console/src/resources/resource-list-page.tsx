import { Link, useNavigate } from 'react-router';
import { useRole } from '../session/use-me';
import { EmptyState } from '../ui/empty-state';
import { PagedTable } from '../ui/paged-table';
import { resourceFormOf } from './resource-forms';
import { useResourceKind } from './resource-kinds';

export function ResourceListPage() {
  const kind = useResourceKind();
  const form = resourceFormOf(kind);
  const { canWrite } = useRole();
  const navigate = useNavigate();
  const create = () => void navigate(`/${kind.route}/new`);
  return (
    <section>
      <div className="page-head">
        <h1>{kind.title}</h1>
        <button type="button" disabled={!canWrite} onClick={create}>
          Create {kind.singular}
        </button>
      </div>
      <PagedTable
        caption={kind.title}
        queryKey={[kind.id, 'list']}
        fetchPage={(offset, limit) => form.list({ limit: String(limit), offset: String(offset), secrets: 'masked' })}
        columns={[
          { header: 'Name', cell: (resource) => <Link to={`/${kind.route}/${resource.id}`}>{resource.name}</Link> },
          { header: form.summaryHeader ?? 'Configuration', cell: form.summary },
          { header: 'Agents using it', cell: (resource) => resource.agent_count },
          { header: 'Updated', cell: (resource) => new Date(resource.updated_at).toLocaleString() },
        ]}
        empty={
          <EmptyState title={`No ${kind.singular}s yet`}>
            <p>{kind.purpose}</p>
            {canWrite ? (
              <button type="button" onClick={create}>
                Create your first {kind.singular}
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
