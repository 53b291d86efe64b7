// One webhook endpoint: its settings, a test event, its secret's rotation, its delivery log and its
// deletion.
import { WEBHOOK_MAX_PENDING_DELIVERIES } from '@agentplane/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { ConfirmDelete } from '../ui/confirm-delete';
import { ProblemAlert } from '../ui/problem-alert';
import { AdminsOnly } from './admins-only';
import {
  deleteEndpoint,
  getEndpoint,
  replaceEndpoint,
  sendTestEvent,
  WEBHOOKS_KEY,
  type WebhookEndpoint,
  webhookKeys,
} from './webhook-api';
import { WebhookDeliveries } from './webhook-deliveries';
import { WebhookEndpointForm } from './webhook-endpoint-form';
import { WebhookRotation } from './webhook-rotation';

export function WebhookPage() {
  return (
    <AdminsOnly>
      <WebhookEndpointView />
    </AdminsOnly>
  );
}

function WebhookEndpointView() {
  const { id = '' } = useParams();
  // Kept here: a save remounts the form with what the server answered.
  const [savedVersion, setSavedVersion] = useState<string | undefined>();
  const query = useQuery({ queryKey: webhookKeys.one(id), queryFn: () => getEndpoint(id) });
  if (query.error) return <ProblemAlert problem={problemOf(query.error)} />;
  if (!query.data) return <p aria-busy="true">Loading…</p>;
  const endpoint = query.data;
  return (
    <section>
      <div className="page-head">
        <h1>{endpoint.description ?? endpoint.url}</h1>
        <p>
          Secret <code>{endpoint.secret_hint}</code>
        </p>
      </div>
      {endpoint.dropped_events > 0 && <DroppedEvents endpoint={endpoint} />}
      <EndpointSettings
        key={endpoint.updated_at}
        endpoint={endpoint}
        saved={savedVersion === endpoint.updated_at}
        onSaved={setSavedVersion}
      />
      <WebhookRotation endpointId={endpoint.id} />
      <TestEvent endpointId={endpoint.id} />
      <WebhookDeliveries endpointId={endpoint.id} />
      <DeleteEndpoint endpoint={endpoint} />
    </section>
  );
}

function DroppedEvents({ endpoint }: { endpoint: WebhookEndpoint }) {
  const last = endpoint.last_dropped_at ? new Date(endpoint.last_dropped_at).toLocaleString() : '';
  return (
    <p className="problem">
      {endpoint.dropped_events} event{endpoint.dropped_events === 1 ? ' was' : 's were'} dropped (the last at {last})
      because {WEBHOOK_MAX_PENDING_DELIVERIES} deliveries were waiting to be sent: is the receiver up?
    </p>
  );
}

function EndpointSettings(props: { endpoint: WebhookEndpoint; saved: boolean; onSaved: (at: string) => void }) {
  const queryClient = useQueryClient();
  return (
    <WebhookEndpointForm
      endpoint={props.endpoint}
      submitLabel="Save"
      saved={props.saved}
      onSubmit={async (body) => {
        const updated = await replaceEndpoint(props.endpoint.id, body);
        props.onSaved(updated.updated_at);
        await queryClient.invalidateQueries({ queryKey: [WEBHOOKS_KEY] });
      }}
    />
  );
}

function TestEvent({ endpointId }: { endpointId: string }) {
  const queryClient = useQueryClient();
  const [outcome, setOutcome] = useState<{ sent?: boolean; problem?: ApiProblem }>({});
  const send = async () => {
    setOutcome({});
    try {
      await sendTestEvent(endpointId);
      setOutcome({ sent: true });
    } catch (error) {
      setOutcome({ problem: problemOf(error) });
    }
    await queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(endpointId) });
  };
  return (
    <div className="actions">
      <button type="button" onClick={() => void send()}>
        Send test event
      </button>
      <span role="status">{outcome.sent ? 'A webhook.test event is queued: see the delivery log.' : ''}</span>
      <ProblemAlert problem={outcome.problem} />
    </div>
  );
}

function DeleteEndpoint({ endpoint }: { endpoint: WebhookEndpoint }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const remove = async () => {
    setProblem(undefined);
    try {
      await deleteEndpoint(endpoint.id);
      queryClient.removeQueries({ queryKey: webhookKeys.one(endpoint.id) });
      await queryClient.invalidateQueries({ queryKey: webhookKeys.list() });
      await navigate('/webhooks');
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  return (
    <div className="danger-zone">
      <ProblemAlert problem={problem} />
      <ConfirmDelete
        what={`the webhook endpoint ${endpoint.url} and its delivery log`}
        onConfirm={() => void remove()}
      />
    </div>
  );
}
