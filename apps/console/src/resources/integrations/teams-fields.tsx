import { type ProviderFieldsProps, SecretField, TextField } from './config-fields';

export function TeamsFields({ form }: ProviderFieldsProps) {
  return (
    <>
      <TextField form={form} name="appId" label="Microsoft App ID" hint="The Azure Bot's app id (a GUID)" />
      <SecretField form={form} name="appPassword" label="App password" hint="A client secret of that app" />
      <TextField
        form={form}
        name="tenantId"
        label="Tenant ID"
        hint="For a single-tenant bot only: its Entra tenant (a GUID)"
        optional
      />
    </>
  );
}
