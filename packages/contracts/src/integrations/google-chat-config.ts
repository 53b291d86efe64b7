import { z } from 'zod';
import { ZChannelSecret, ZProviderIdentifier } from './channel-config-fields.js';

export const ZGoogleChatConfig = z
  .strictObject({
    // The Chat app's "Authentication Audience": the project number, or the endpoint URL.
    audience: ZProviderIdentifier,
    // The service account the app posts replies as (Chat API, chat.bot scope).
    serviceAccountEmail: z.email().max(254),
    // Its private key, PEM (PKCS #8), as in the key file's private_key.
    serviceAccountPrivateKey: ZChannelSecret.regex(
      /^(enc:v1:.*|\s*-----BEGIN PRIVATE KEY-----[\s\S]+-----END PRIVATE KEY-----\s*)$/,
      {
        error: "Must be a PEM private key (-----BEGIN PRIVATE KEY-----…), as in the key file's private_key",
      },
    ),
  })
  .meta({ id: 'GoogleChatConfig', description: 'Configuration of the GOOGLE_CHAT provider' });
export type TGoogleChatConfig = z.infer<typeof ZGoogleChatConfig>;

export const GOOGLE_CHAT_SECRET_FIELDS = [
  'serviceAccountPrivateKey',
] as const satisfies readonly (keyof TGoogleChatConfig)[];
