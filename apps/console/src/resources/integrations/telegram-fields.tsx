import { type ProviderFieldsProps, SecretField } from './config-fields';

export function TelegramFields({ form }: ProviderFieldsProps) {
  return (
    <>
      <SecretField form={form} name="botToken" label="Bot token" hint="From @BotFather, such as 123456:ABC-DEF…" />
      <SecretField
        form={form}
        name="secretToken"
        label="Secret token"
        hint="The secret_token you give setWebhook: 16 to 256 characters of A-Z, a-z, 0-9, _ and -"
      />
    </>
  );
}
