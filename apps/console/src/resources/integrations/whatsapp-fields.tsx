import { type ProviderFieldsProps, SecretField, TextField } from './config-fields';

export function WhatsAppFields({ form }: ProviderFieldsProps) {
  return (
    <>
      <SecretField form={form} name="accessToken" label="Access token" />
      <TextField form={form} name="phoneNumberId" label="Phone number ID" />
      <SecretField
        form={form}
        name="verifyToken"
        label="Verify token"
        hint="Meta sends it back when you subscribe the webhook"
      />
      <TextField form={form} name="apiVersion" label="API version" hint='Such as "v21.0"' optional />
      <SecretField form={form} name="appSecret" label="App secret" hint="Set it to check webhook signatures" optional />
    </>
  );
}
