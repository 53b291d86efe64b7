// The operator's webhook settings: the manager env's fields, their reference entries, and the typed
// settings the routes and the delivery worker take.
import type { EnvDocs } from '@agentplane/server-kit';
import { z } from 'zod';
import { MAX_WEBHOOKS_PER_WORKSPACE_DEFAULT } from './webhook-endpoint-service.js';
import type { WebhookWorkerSettings } from './webhook-worker.js';

/** The longest wait between two attempts, whatever the backoff or a Retry-After asks. */
const RETRY_MAX_DELAY_MS = 60 * 60_000;

export const WEBHOOK_ENV_FIELDS = {
  MAX_WEBHOOKS_PER_WORKSPACE: z.coerce.number().int().min(1).max(1000).default(MAX_WEBHOOKS_PER_WORKSPACE_DEFAULT),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(10).max(120_000).default(10_000),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(RETRY_MAX_DELAY_MS).default(5_000),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  WEBHOOK_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
};

type WebhookEnv = { [K in keyof typeof WEBHOOK_ENV_FIELDS]: z.infer<(typeof WEBHOOK_ENV_FIELDS)[K]> };

/** A lease shorter than an attempt would let a second manager send while the first still waits for an answer. */
export function leaseOutlivesAttempt(env: WebhookEnv): boolean {
  return env.WEBHOOK_LEASE_MS > env.WEBHOOK_TIMEOUT_MS;
}

export type WebhookSettings = { maxPerWorkspace: number; worker: WebhookWorkerSettings };

export function readWebhookSettings(env: WebhookEnv): WebhookSettings {
  return {
    maxPerWorkspace: env.MAX_WEBHOOKS_PER_WORKSPACE,
    worker: {
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      baseMs: env.WEBHOOK_RETRY_BASE_MS,
      maxDelayMs: RETRY_MAX_DELAY_MS,
      pollMs: env.WEBHOOK_POLL_MS,
      leaseMs: env.WEBHOOK_LEASE_MS,
      retentionDays: env.WEBHOOK_DELIVERY_RETENTION_DAYS,
    },
  };
}

export const WEBHOOK_ENV_DOCS: EnvDocs<typeof WEBHOOK_ENV_FIELDS> = {
  MAX_WEBHOOKS_PER_WORKSPACE: {
    description:
      'The most webhook endpoints one workspace may have (1 to 1000); a create past it is a **409** problem+json (`urn:agentplane:problem:webhooks-per-workspace`). See [Webhooks](/guide/webhooks)',
  },
  WEBHOOK_TIMEOUT_MS: {
    description: 'How long one delivery attempt waits for the receiver to answer before it counts as failed',
  },
  WEBHOOK_RETRY_BASE_MS: {
    description:
      'The first retry delay of a failed delivery; each next one doubles (with jitter, at most an hour) until a day after the event',
  },
  WEBHOOK_POLL_MS: {
    description: 'How often each manager replica looks for deliveries that are due',
  },
  WEBHOOK_LEASE_MS: {
    description:
      'How long a manager holds a delivery it is sending; a manager that dies mid-send leaves it to another after this. Must be longer than `WEBHOOK_TIMEOUT_MS`',
  },
  WEBHOOK_DELIVERY_RETENTION_DAYS: {
    description:
      'How long finished deliveries stay in the delivery log (at most the newest 1000 per endpoint are kept whatever their age)',
  },
};
