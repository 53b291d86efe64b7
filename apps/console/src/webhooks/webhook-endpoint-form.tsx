// A webhook endpoint's settings, as created or replaced: its URL, the events it receives, and whether
// payloads carry conversation content. The contracts' schema checks it before the server does.
import { WEBHOOK_EVENT_TYPES, ZWebhookEndpointInput } from '@agentplane/contracts';
import type { z } from 'zod';
import { errorAt, Field, optionalText } from '../ui/field';
import { linesError } from '../ui/list-fields';
import { ProblemAlert } from '../ui/problem-alert';
import { useApiForm } from '../ui/use-api-form';
import type { WebhookEndpoint, WebhookEndpointBody } from './webhook-api';

const EVENT_LABELS: Record<(typeof WEBHOOK_EVENT_TYPES)[number], string> = {
  'run.succeeded': 'A run succeeded',
  'run.failed': 'A run failed',
  'run.cancelled': 'A run was cancelled',
  'interrupt.created': 'A run waits for a person (interrupt)',
  'budget.exceeded': 'A budget refused a run',
  'agent.version.created': 'An agent version was recorded',
};

type FormValues = z.input<typeof ZWebhookEndpointInput>;

function valuesOf(endpoint: WebhookEndpoint): FormValues {
  return {
    url: endpoint.url,
    description: endpoint.description ?? undefined,
    event_types: endpoint.event_types,
    include_content: endpoint.include_content,
    enabled: endpoint.enabled,
  };
}

const BLANK: FormValues = {
  url: '',
  event_types: ['run.succeeded', 'run.failed'],
  include_content: false,
  enabled: true,
};

export function WebhookEndpointForm(props: {
  endpoint?: WebhookEndpoint;
  submitLabel: string;
  onSubmit: (body: WebhookEndpointBody) => Promise<void>;
  saved?: boolean;
}) {
  const { form, problem, onSubmit } = useApiForm({
    schema: ZWebhookEndpointInput,
    defaultValues: props.endpoint ? valuesOf(props.endpoint) : BLANK,
    submit: props.onSubmit,
  });
  const { errors, isSubmitting } = form.formState;
  const eventsError = linesError(errors, 'event_types', () => '');
  return (
    <form onSubmit={(event) => void onSubmit(event)} noValidate>
      <ProblemAlert problem={problem} />
      <Field label="URL" error={errorAt(errors, 'url')} hint="Where events are POSTed, signed (Standard Webhooks)">
        <input type="url" autoComplete="off" {...form.register('url')} />
      </Field>
      <Field label="Description" error={errorAt(errors, 'description')}>
        <input {...form.register('description', optionalText)} />
      </Field>
      <fieldset>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <div className="checkbox" key={type}>
            <input id={`event-${type}`} type="checkbox" value={type} {...form.register('event_types')} />
            <label htmlFor={`event-${type}`}>
              {EVENT_LABELS[type]} (<code>{type}</code>)
            </label>
          </div>
        ))}
        {eventsError && <span className="field-error">{eventsError}</span>}
      </fieldset>
      <div className="checkbox">
        <input id="include-content" type="checkbox" {...form.register('include_content')} />
        <label htmlFor="include-content">
          Include conversation content (final replies, error texts, tool arguments)
        </label>
      </div>
      <div className="checkbox">
        <input id="endpoint-enabled" type="checkbox" {...form.register('enabled')} />
        <label htmlFor="endpoint-enabled">Enabled</label>
      </div>
      <div className="actions">
        <button type="submit" disabled={isSubmitting}>
          {props.submitLabel}
        </button>
        {props.saved && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}
