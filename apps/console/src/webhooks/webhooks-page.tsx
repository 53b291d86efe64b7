// The workspace's outgoing webhook endpoints, a page at a time.
import { Link, useNavigate } from 'react-router';
import { EmptyState } from '../ui/empty-state';
import { type Column, PagedTable } from '../ui/paged-table';
import { AdminsOnly } from './admins-only';
import { listEndpoints, type WebhookEndpoint, webhookKeys } from './webhook-api';

const COLUMNS: Column<WebhookEndpoint>[] = [
  { header: 'URL', cell: (endpoint) => <Link to={`/webhooks/${endpoint.id}`}>{endpoint.url}</Link> },
  { header: 'Description', cell: (endpoint) => endpoint.description ?? '' },
  { header: 'Events', cell: (endpoint) => endpoint.event_types.join(', ') },
  { header: 'Enabled', cell: (endpoint) => (endpoint.enabled ? 'Yes' : 'No') },
  { header: 'Content', cell: (endpoint) => (endpoint.include_content ? 'Included' : 'Ids and status only') },
  { header: 'Secret', cell: (endpoint) => <code>{endpoint.secret_hint}</code> },
  { header: 'Dropped events', cell: (endpoint) => endpoint.dropped_events },
];

export function WebhooksPage() {
  const navigate = useNavigate();
  const create = () => void navigate('/webhooks/new');
  return (
    <section>
      <div className="page-head">
        <h1>Webhooks</h1>
      </div>
      <AdminsOnly>
        <button type="button" onClick={create}>
          Create webhook endpoint
        </button>
        <PagedTable
          caption="Webhook endpoints"
          queryKey={webhookKeys.list()}
          fetchPage={listEndpoints}
          columns={COLUMNS}
          empty={
            <EmptyState title="No webhook endpoints yet">
              <p>An endpoint receives a signed POST when a run ends, waits for a person, or hits a budget.</p>
            </EmptyState>
          }
        />
      </AdminsOnly>
    </section>
  );
}
