import { type ProviderFieldsProps, SecretField, TextField } from './config-fields';

export function SlackFields({ form }: ProviderFieldsProps) {
  return (
    <>
      <SecretField form={form} name="botToken" label="Bot token" hint="xoxb-…, under OAuth & Permissions" />
      <SecretField form={form} name="signingSecret" label="Signing secret" hint="Under Basic Information" />
      <TextField form={form} name="appId" label="App ID" hint='Such as "A0123456789", under Basic Information' />
    </>
  );
}
