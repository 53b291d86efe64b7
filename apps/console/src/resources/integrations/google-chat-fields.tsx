import { type ProviderFieldsProps, SecretField, TextField } from './config-fields';

export function GoogleChatFields({ form }: ProviderFieldsProps) {
  return (
    <>
      <TextField
        form={form}
        name="audience"
        label="Authentication audience"
        hint="As set in the Chat app's connection settings: the project number, or the endpoint URL"
      />
      <TextField
        form={form}
        name="serviceAccountEmail"
        label="Service account email"
        hint="The account replies are posted as"
      />
      <SecretField
        form={form}
        name="serviceAccountPrivateKey"
        label="Service account private key"
        hint="The private_key of its JSON key file, line breaks and all: -----BEGIN PRIVATE KEY-----…"
        multiline
      />
    </>
  );
}
