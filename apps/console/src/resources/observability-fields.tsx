// An observability config's fields: where the agent's engine exports its traces, per provider.
import { OBSERVABILITY_PROVIDERS, OTLP_PROTOCOLS, type TObservabilityProvider } from '@agentplane/contracts';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { errorAt, Field, optionalText } from '../ui/field';
import { MapField } from '../ui/list-fields';

/** A new object when the provider changes: the other providers' fields do not carry over. */
export function blankObservability(provider: TObservabilityProvider): Record<string, unknown> {
  switch (provider) {
    case 'OTLP':
      return { provider, endpoint: '', protocol: 'http/protobuf', headers: {}, capture_content: false };
    case 'LANGFUSE':
      return { provider, host: '', public_key: '', secret_key: '', capture_content: false };
    case 'PHOENIX':
      return { provider, endpoint: '', capture_content: false };
  }
}

export function ObservabilityFields({ form }: { form: UseFormReturn<FieldValues> }) {
  const { register, control } = form;
  const error = (name: string) => errorAt(form.formState.errors, `observability.${name}`);
  const provider = form.watch('observability.provider') as TObservabilityProvider;
  return (
    <fieldset>
      <legend>Observability</legend>
      <Field label="Provider" error={error('provider')}>
        <select
          {...register('observability.provider', {
            onChange: (event) =>
              form.setValue('observability', blankObservability(event.target.value as TObservabilityProvider)),
          })}
        >
          {OBSERVABILITY_PROVIDERS.map((name) => (
            <option key={name}>{name}</option>
          ))}
        </select>
      </Field>
      {provider === 'LANGFUSE' ? (
        <>
          <Field label="Host" error={error('host')} hint="Such as https://cloud.langfuse.com">
            <input {...register('observability.host')} />
          </Field>
          <Field label="Public key" error={error('public_key')}>
            <input {...register('observability.public_key')} />
          </Field>
          <Field label="Secret key" error={error('secret_key')}>
            <input autoComplete="off" {...register('observability.secret_key')} />
          </Field>
        </>
      ) : (
        <Field label="Endpoint" error={error('endpoint')} hint="The OTLP/HTTP traces URL">
          <input {...register('observability.endpoint')} />
        </Field>
      )}
      {provider === 'OTLP' && (
        <>
          <Field label="Protocol" error={error('protocol')}>
            <select {...register('observability.protocol')}>
              {OTLP_PROTOCOLS.map((protocol) => (
                <option key={protocol}>{protocol}</option>
              ))}
            </select>
          </Field>
          <MapField
            control={control}
            name="observability.headers"
            label="Headers"
            separator=":"
            error={error('headers')}
          />
        </>
      )}
      {provider === 'PHOENIX' && (
        <Field label="API key" error={error('api_key')}>
          <input autoComplete="off" {...register('observability.api_key', optionalText)} />
        </Field>
      )}
      <div className="checkbox">
        <input id="capture-content" type="checkbox" {...register('observability.capture_content')} />
        <label htmlFor="capture-content">Capture prompt and completion text</label>
      </div>
    </fieldset>
  );
}
