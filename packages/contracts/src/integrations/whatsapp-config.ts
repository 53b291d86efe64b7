import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { ZNonBlankString } from '../common/primitives.js';
import { makeSecretString } from '../secrets/secret-string.js';

export const WHATSAPP_API_VERSION_DEFAULT = 'v21.0';

export const ZWhatsAppConfig = z
  .strictObject({
    accessToken: makeSecretString(ZNonBlankString),
    // Not a secret, and it becomes a URL path segment of the Graph API call, so stray whitespace is dropped.
    phoneNumberId: z.string().trim().min(1).max(IDENTIFIER_MAX_LENGTH),
    verifyToken: makeSecretString(ZNonBlankString),
    apiVersion: z
      .string()
      .max(IDENTIFIER_MAX_LENGTH)
      .regex(/^v\d+\.\d+$/, { error: 'Must be a Graph API version such as "v21.0"' })
      .default(WHATSAPP_API_VERSION_DEFAULT),
    // Optional extension: when set, the engine checks X-Hub-Signature-256 on incoming webhooks.
    appSecret: makeSecretString(ZNonBlankString).optional(),
  })
  .meta({ id: 'WhatsAppConfig', description: 'Configuration of the WHATSAPP provider' });
export type TWhatsAppConfig = z.infer<typeof ZWhatsAppConfig>;

/** Fields that are encrypted at rest and redacted wherever a config is shown outside the Manager API. */
export const WHATSAPP_SECRET_FIELDS = [
  'accessToken',
  'verifyToken',
  'appSecret',
] as const satisfies readonly (keyof TWhatsAppConfig)[];
export type TWhatsAppSecretField = (typeof WHATSAPP_SECRET_FIELDS)[number];
