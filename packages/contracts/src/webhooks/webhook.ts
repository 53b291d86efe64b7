// Outgoing webhooks (issue 35): the URLs a workspace subscribes to events, and the log of what was
// sent to them. Deliveries are signed per the Standard Webhooks specification; an endpoint's secret
// is shown whole only by its create and by a rotation.
import { z } from 'zod';
import { DESCRIPTION_MAX_LENGTH } from '../common/limits.js';
import { ZPaginationQuery } from '../common/pagination.js';
import { EGRESS_RULE, hasUserinfo, makeUrlText, NO_USERINFO_RULE, ZIsoDateTime, ZUuid } from '../common/primitives.js';

export const WEBHOOK_EVENT_TYPES = [
  'run.succeeded',
  'run.failed',
  'run.cancelled',
  'interrupt.created',
  'budget.exceeded',
  'agent.version.created',
] as const;
export const ZWebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type TWebhookEventType = z.infer<typeof ZWebhookEventType>;

/** The event a "send test event" request delivers; no subscription is needed for it. */
export const WEBHOOK_TEST_EVENT_TYPE = 'webhook.test';

/**
 * The most undelivered (pending) deliveries one endpoint holds; past it new events for the endpoint are
 * dropped and counted. The database applies it (webhook_max_pending() in the webhooks migration).
 */
export const WEBHOOK_MAX_PENDING_DELIVERIES = 1000;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

const ZWebhookUrl = makeUrlText(z.url({ protocol: /^https?$/ }))
  .refine((url) => !hasUserinfo(url), NO_USERINFO_RULE)
  .meta({ description: `Where events are POSTed (http or https). ${EGRESS_RULE}` });

export const ZWebhookEndpointInput = z
  .strictObject({
    url: ZWebhookUrl,
    description: z.string().trim().max(DESCRIPTION_MAX_LENGTH).nullable().default(null),
    event_types: z
      .array(ZWebhookEventType)
      .min(1)
      .max(WEBHOOK_EVENT_TYPES.length)
      .refine((types) => new Set(types).size === types.length, 'Must not repeat an event type')
      .meta({ description: 'The events this URL receives' }),
    include_content: z.boolean().default(false).meta({
      description:
        "Whether payloads carry conversation content (a failed run's error text, a succeeded run's final reply, an interrupt's tool arguments); ids and status only when false",
    }),
    enabled: z.boolean().default(true),
  })
  .meta({ id: 'WebhookEndpointInput', description: 'A webhook endpoint as created or replaced (PATCH)' });
export type TWebhookEndpointInput = z.infer<typeof ZWebhookEndpointInput>;

export const ZWebhookEndpoint = z
  .strictObject({
    id: ZUuid,
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(ZWebhookEventType),
    include_content: z.boolean(),
    enabled: z.boolean(),
    secret_hint: z
      .string()
      .meta({ description: 'The signing secret masked (its last four characters); it is shown whole only once' }),
    dropped_events: z
      .number()
      .int()
      .min(0)
      .meta({
        description: `Events not sent because the endpoint already had ${WEBHOOK_MAX_PENDING_DELIVERIES} undelivered deliveries`,
      }),
    last_dropped_at: ZIsoDateTime.nullable().meta({ description: 'When an event was last dropped so' }),
    created_at: ZIsoDateTime,
    updated_at: ZIsoDateTime,
  })
  .meta({ id: 'WebhookEndpoint' });
export type TWebhookEndpoint = z.infer<typeof ZWebhookEndpoint>;

export const ZWebhookEndpointWithSecret = ZWebhookEndpoint.extend({
  secret: z.string().meta({
    description:
      'The signing secret (whsec_ then base64), for the Standard Webhooks verifier; shown this once, store it now',
  }),
}).meta({ id: 'WebhookEndpointWithSecret' });
export type TWebhookEndpointWithSecret = z.infer<typeof ZWebhookEndpointWithSecret>;

export const ZWebhookSecretRotation = z
  .strictObject({
    previous_valid_seconds: z.number().int().min(0).max(86_400).default(0).meta({
      description:
        'How long the old secret keeps signing beside the new one (both signatures are sent), so receivers can switch without a gap',
    }),
  })
  .meta({ id: 'WebhookSecretRotation' });

export const ZWebhookDeliveryListQuery = ZPaginationQuery.extend({
  status: z.enum(WEBHOOK_DELIVERY_STATUSES).optional().meta({ description: 'Only deliveries in this status' }),
});
export type TWebhookDeliveryListQuery = z.infer<typeof ZWebhookDeliveryListQuery>;

export const ZWebhookDeliveryAttempt = z.strictObject({
  attempt: z.number().int().min(1),
  started_at: ZIsoDateTime,
  status_code: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when none came" }),
  latency_ms: z.number().int().min(0),
  error: z.string().nullable().meta({ description: 'Why it failed without a status: a timeout, a refused address…' }),
});

export const ZWebhookDelivery = z
  .strictObject({
    id: ZUuid,
    endpoint_id: ZUuid,
    message_id: z.string().meta({ description: 'The webhook-id header: the same on every retry and replay' }),
    event_type: z.string(),
    payload: z.record(z.string(), z.unknown()).meta({ description: 'The body sent: {type, timestamp, data}' }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    attempts: z.number().int().min(0),
    next_attempt_at: ZIsoDateTime.nullable().meta({ description: 'When it is tried again; null once final' }),
    last_status_code: z.number().int().nullable(),
    last_latency_ms: z.number().int().nullable(),
    last_error: z.string().nullable(),
    replay_of: ZUuid.nullable().meta({ description: 'The delivery this one replays' }),
    created_at: ZIsoDateTime,
    finished_at: ZIsoDateTime.nullable(),
    attempt_log: z.array(ZWebhookDeliveryAttempt).meta({ description: 'Every attempt, oldest first' }),
  })
  .meta({ id: 'WebhookDelivery', description: 'One event sent to one endpoint, with its attempts' });
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;

export const ZWebhookDeliveryParams = z.strictObject({ id: ZUuid, deliveryId: ZUuid });
