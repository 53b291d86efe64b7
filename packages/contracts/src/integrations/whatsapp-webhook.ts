// What the WhatsApp Cloud API posts to the engine's webhook. Objects are loose: Meta adds fields over
// time, and only the ones the engine reads are checked. A body that misses these is malformed (400).
import { z } from 'zod';

export const ZWhatsAppInboundMessage = z.looseObject({
  id: z.string().min(1),
  from: z.string().min(1),
  timestamp: z.string().optional(),
  type: z.string().min(1),
  text: z.looseObject({ body: z.string() }).optional(),
});
export type TWhatsAppInboundMessage = z.infer<typeof ZWhatsAppInboundMessage>;

export const ZWhatsAppStatus = z.looseObject({
  id: z.string(),
  status: z.string(),
  recipient_id: z.string().optional(),
});

export const ZWhatsAppChangeValue = z.looseObject({
  messaging_product: z.string().optional(),
  metadata: z
    .looseObject({ phone_number_id: z.string().min(1), display_phone_number: z.string().optional() })
    .optional(),
  contacts: z.array(z.looseObject({ wa_id: z.string().optional() })).optional(),
  messages: z.array(ZWhatsAppInboundMessage).optional(),
  statuses: z.array(ZWhatsAppStatus).optional(),
});

export const ZWhatsAppWebhookPayload = z.looseObject({
  object: z.string().min(1),
  entry: z.array(
    z.looseObject({
      id: z.string().optional(),
      changes: z.array(z.looseObject({ field: z.string().optional(), value: ZWhatsAppChangeValue })),
    }),
  ),
});
export type TWhatsAppWebhookPayload = z.infer<typeof ZWhatsAppWebhookPayload>;
