import { z } from 'zod';
import { IDENTIFIER_MAX_LENGTH } from '../common/limits.js';
import { ZNonBlankString } from '../common/primitives.js';
import { SECRET_FIELD_RULE } from '../secrets/secret-mask.js';
import { makeSecretString } from '../secrets/secret-string.js';

const ZSecret = makeSecretString(ZNonBlankString).meta({ description: SECRET_FIELD_RULE });

export const WHATSAPP_API_VERSION_DEFAULT = 'v21.0';

export const ZWhatsAppConfig = z
  .strictObject({
    accessToken: ZSecret,
    // Not a secret, and it becomes a URL path segment of the Graph API call, so stray whitespace is dropped.
    phoneNumberId: z.string().trim().min(1).max(IDENTIFIER_MAX_LENGTH),
    verifyToken: ZSecret,
    apiVersion: z
      .string()
      .max(IDENTIFIER_MAX_LENGTH)
      .regex(/^v\d+\.\d+$/, { error: 'Must be a Graph API version such as "v21.0"' })
      .default(WHATSAPP_API_VERSION_DEFAULT),
    // Optional extension: when set, the engine checks X-Hub-Signature-256 on incoming webhooks.
    appSecret: ZSecret.optional(),
    // Without an appSecret the engine refuses every delivery, unless this opt-out says otherwise.
    allowUnsignedDeliveries: z.boolean().optional().meta({
      description:
        'UNSAFE; default false. Without appSecret, the engine refuses (401) every webhook delivery to this integration. true makes it accept unsigned deliveries instead (each logged as a warning): anyone who can reach the engine can then inject messages. It has no effect while appSecret is set.',
    }),
  })
  .meta({ id: 'WhatsAppConfig', description: 'Configuration of the WHATSAPP provider' });
export type TWhatsAppConfig = z.infer<typeof ZWhatsAppConfig>;

/** Fields that are encrypted at rest, masked for viewers, and redacted wherever a config is shown outside the Manager API. */
export const WHATSAPP_SECRET_FIELDS = [
  'accessToken',
  'verifyToken',
  'appSecret',
] as const satisfies readonly (keyof TWhatsAppConfig)[];
export type TWhatsAppSecretField = (typeof WHATSAPP_SECRET_FIELDS)[number];
