// An integration's form: the provider, whether it is enabled, and the chosen provider's own fields.
// Switching provider starts its config afresh: no field carries over to a provider that has no such field.
import { INTEGRATION_PROVIDERS, type TIntegrationConfig, type TIntegrationProvider } from '@agentplane/contracts';
import type { ReactNode } from 'react';
import type { FieldValues, UseFormReturn } from 'react-hook-form';
import { errorAt, Field } from '../../ui/field';
import type { ProviderFieldsProps } from './config-fields';
import { DiscordFields } from './discord-fields';
import { GoogleChatFields } from './google-chat-fields';
import { providerLabel } from './provider-labels';
import { SlackFields } from './slack-fields';
import { TeamsFields } from './teams-fields';
import { TelegramFields } from './telegram-fields';
import { WhatsAppFields } from './whatsapp-fields';

type ProviderForm = {
  Fields: (props: ProviderFieldsProps) => ReactNode;
  /** Its required fields, empty; optional ones are absent. */
  blank: Record<string, string>;
  /** Its non-secret field that tells two of its integrations apart in a list. */
  identifiedBy?: string;
};

const PROVIDER_FORMS: Record<TIntegrationProvider, ProviderForm> = {
  WHATSAPP: {
    Fields: WhatsAppFields,
    blank: { accessToken: '', phoneNumberId: '', verifyToken: '' },
    identifiedBy: 'phoneNumberId',
  },
  SLACK: {
    Fields: SlackFields,
    blank: { botToken: '', signingSecret: '', appId: '' },
    identifiedBy: 'appId',
  },
  TELEGRAM: { Fields: TelegramFields, blank: { botToken: '', secretToken: '' } },
  DISCORD: {
    Fields: DiscordFields,
    blank: { applicationId: '', publicKey: '', botToken: '' },
    identifiedBy: 'applicationId',
  },
  TEAMS: {
    Fields: TeamsFields,
    blank: { appId: '', appPassword: '' },
    identifiedBy: 'appId',
  },
  GOOGLE_CHAT: {
    Fields: GoogleChatFields,
    blank: { audience: '', serviceAccountEmail: '', serviceAccountPrivateKey: '' },
    identifiedBy: 'serviceAccountEmail',
  },
};

export function blankIntegration(provider: TIntegrationProvider) {
  return { provider, enabled: true, config: { ...PROVIDER_FORMS[provider].blank } };
}

/** The list's cell: the provider, the id that tells its integrations apart, and whether it is off. */
export function integrationSummary(integration: Pick<TIntegrationConfig, 'provider' | 'enabled' | 'config'>): string {
  const { identifiedBy } = PROVIDER_FORMS[integration.provider];
  const id = identifiedBy && (integration.config as Record<string, unknown>)[identifiedBy];
  return `${providerLabel(integration.provider)}${typeof id === 'string' ? ` · ${id}` : ''}${integration.enabled ? '' : ' (disabled)'}`;
}

export function IntegrationFields({ form }: { form: UseFormReturn<FieldValues> }) {
  const { register } = form;
  const provider = form.watch('integration.provider') as TIntegrationProvider;
  const { Fields } = PROVIDER_FORMS[provider];
  return (
    <fieldset>
      <legend>Integration</legend>
      <p className="note">Each agent that uses it shows the webhook URL to give the provider, on its Connect tab.</p>
      <Field label="Provider" error={errorAt(form.formState.errors, 'integration.provider')}>
        <select
          {...register('integration.provider', {
            onChange: (event) => {
              const next = event.target.value as TIntegrationProvider;
              form.setValue('integration.config', blankIntegration(next).config);
              // What the last provider's fields were told is about fields no longer shown.
              form.clearErrors('integration.config');
            },
          })}
        >
          {INTEGRATION_PROVIDERS.map((name) => (
            <option key={name} value={name}>
              {providerLabel(name)}
            </option>
          ))}
        </select>
      </Field>
      <div className="checkbox">
        <input id="integration-enabled" type="checkbox" {...register('integration.enabled')} />
        <label htmlFor="integration-enabled">Enabled</label>
      </div>
      <Fields form={form} />
    </fieldset>
  );
}
