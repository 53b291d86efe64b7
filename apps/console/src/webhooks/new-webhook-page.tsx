// Subscribing a URL to events. The answer holds the endpoint's signing secret, which the page shows
// once, in place of the form, before the person moves on to the endpoint.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { AdminsOnly } from './admins-only';
import { createEndpoint, WEBHOOKS_KEY, type WebhookEndpointWithSecret } from './webhook-api';
import { WebhookEndpointForm } from './webhook-endpoint-form';
import { WebhookSecretOnce } from './webhook-secret-once';

export function NewWebhookPage() {
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<WebhookEndpointWithSecret | undefined>();
  return (
    <section>
      <h1>New webhook endpoint</h1>
      <AdminsOnly>
        {created ? (
          <>
            <p>Created {created.url}.</p>
            <WebhookSecretOnce secret={created.secret} />
            <Link to={`/webhooks/${created.id}`}>Open the endpoint</Link>
          </>
        ) : (
          <WebhookEndpointForm
            submitLabel="Create webhook endpoint"
            onSubmit={async (body) => {
              setCreated(await createEndpoint(body));
              await queryClient.invalidateQueries({ queryKey: [WEBHOOKS_KEY] });
            }}
          />
        )}
      </AdminsOnly>
    </section>
  );
}
