// An endpoint's delivery log, newest first, read again every few seconds while shown: a delivery moves
// from pending to succeeded or failed on its own. Any delivery can be sent again (same webhook-id).
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { EmptyState } from '../ui/empty-state';
import { type Column, PagedTable } from '../ui/paged-table';
import { listDeliveries, replayDelivery, type WebhookDelivery, webhookKeys } from './webhook-api';

const REFRESH_MS = 3_000;

function statusOf(delivery: WebhookDelivery): string {
  if (delivery.status !== 'pending' || delivery.attempts === 0) return delivery.status;
  return `${delivery.status} (retrying)`;
}

export function WebhookDeliveries({ endpointId }: { endpointId: string }) {
  const columns: Column<WebhookDelivery>[] = [
    { header: 'Event', cell: (delivery) => <code>{delivery.event_type}</code> },
    { header: 'Status', cell: statusOf },
    { header: 'Attempts', cell: (delivery) => delivery.attempts },
    {
      header: 'Response code',
      cell: (delivery) => delivery.last_status_code ?? (delivery.last_error ? `none: ${delivery.last_error}` : '—'),
    },
    {
      header: 'Latency',
      cell: (delivery) => (delivery.last_latency_ms === null ? '—' : `${delivery.last_latency_ms} ms`),
    },
    { header: 'Time', cell: (delivery) => new Date(delivery.created_at).toLocaleString() },
    { header: 'Replay', cell: (delivery) => <ReplayButton delivery={delivery} /> },
  ];
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Delivery log</h2>
      <PagedTable
        caption="Deliveries"
        queryKey={webhookKeys.deliveries(endpointId)}
        fetchPage={(offset, limit) => listDeliveries(endpointId, offset, limit)}
        columns={columns}
        refetchIntervalMs={REFRESH_MS}
        empty={
          <EmptyState title="No deliveries yet">
            <p>Each event this endpoint subscribes to is listed here with its attempts; send a test event to try it.</p>
          </EmptyState>
        }
      />
    </section>
  );
}

function ReplayButton({ delivery }: { delivery: WebhookDelivery }) {
  const queryClient = useQueryClient();
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const replay = async () => {
    setProblem(undefined);
    try {
      await replayDelivery(delivery.endpoint_id, delivery.id);
    } catch (error) {
      setProblem(problemOf(error));
    }
    await queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(delivery.endpoint_id) });
  };
  return (
    <>
      <button
        type="button"
        aria-label={`Replay ${delivery.event_type} of ${new Date(delivery.created_at).toLocaleString()}`}
        onClick={() => void replay()}
      >
        Replay
      </button>
      {problem && <span role="alert">{problem.detail ?? problem.title}</span>}
    </>
  );
}
