import { type ProviderFieldsProps, SecretField, TextField } from './config-fields';

export function DiscordFields({ form }: ProviderFieldsProps) {
  return (
    <>
      <TextField form={form} name="applicationId" label="Application ID" hint="Under General Information" />
      <TextField
        form={form}
        name="publicKey"
        label="Public key"
        hint="64 hexadecimal characters, under General Information"
      />
      <SecretField form={form} name="botToken" label="Bot token" hint="Under Bot" />
    </>
  );
}
