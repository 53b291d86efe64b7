// A new signing secret for an endpoint, shown once. The old one can keep signing beside it for a while
// (both signatures are sent), so the receiver switches without refusing a delivery.
import { ZWebhookSecretRotation } from '@agentplane/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorAt, Field, optionalNumber } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';
import { rotateSecret, webhookKeys } from './webhook-api';
import { WebhookSecretOnce } from './webhook-secret-once';

export function WebhookRotation({ endpointId }: { endpointId: string }) {
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | undefined>();
  const { form, problem, onSubmit } = useApiForm({
    schema: ZWebhookSecretRotation,
    submit: async (body) => {
      const rotated = await rotateSecret(endpointId, body.previous_valid_seconds);
      setSecret(rotated.secret);
      await queryClient.invalidateQueries({ queryKey: webhookKeys.one(endpointId) });
    },
  });
  return (
    <section aria-labelledby="rotate-heading">
      <h2 id="rotate-heading">Rotate the signing secret</h2>
      <form onSubmit={(event) => void onSubmit(event)} noValidate>
        <ProblemAlert problem={problem} />
        <Field
          label="Keep the old secret valid for (seconds)"
          error={errorAt(form.formState.errors, 'previous_valid_seconds')}
          hint="0 to 86400; empty or 0 ends the old secret at once"
        >
          <input type="number" min={0} max={86_400} {...form.register('previous_valid_seconds', optionalNumber)} />
        </Field>
        <button type="submit" disabled={form.formState.isSubmitting}>
          Rotate secret
        </button>
      </form>
      {secret && <WebhookSecretOnce secret={secret} />}
    </section>
  );
}
