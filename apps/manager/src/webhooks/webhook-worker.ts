// The delivery worker every manager replica runs: it polls the queue, leases what is due, sends each
// delivery once per lease and stores the outcome under that lease. Polling is the guarantee; `wake`
// only shortens the wait for what this replica queued itself (a test event, a replay).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db, SecretBox } from '@agentplane/db';
import type { EgressPolicy, Logger } from '@agentplane/server-kit';
import { type ClaimedDelivery, claimDueDeliveries, pruneDeliveries, recordAttempt } from './delivery-queue.js';
import { nextAttemptAt, type RetrySettings } from './retry-schedule.js';
import { sendWebhook } from './send-webhook.js';

export type WebhookWorkerSettings = RetrySettings & {
  pollMs: number;
  timeoutMs: number;
  /** Longer than timeoutMs: a lease must outlive the attempt it covers. */
  leaseMs: number;
  retentionDays: number;
};

export type WebhookWorkerDependencies = {
  db: Db;
  box: SecretBox;
  egress: EgressPolicy;
  logger: Logger;
  settings: WebhookWorkerSettings;
};

export type WebhookWorker = { wake: () => void; stop: () => Promise<void> };

const CLAIM_BATCH = 16;
const PRUNE_EVERY_MS = 10 * 60_000;

function secretsOf(delivery: ClaimedDelivery, box: SecretBox, now: Date): string[] {
  const current = box.open(delivery.secret);
  const previousValid =
    delivery.previousSecret !== null &&
    delivery.previousSecretExpiresAt !== null &&
    delivery.previousSecretExpiresAt > now;
  return previousValid ? [current, box.open(delivery.previousSecret as string)] : [current];
}

async function attemptDelivery(deps: WebhookWorkerDependencies, owner: string, delivery: ClaimedDelivery) {
  const { settings } = deps;
  const startedAt = new Date();
  const sent = delivery.enabled
    ? await sendWebhook(
        deps.egress,
        {
          url: delivery.url,
          messageId: delivery.messageId,
          body: delivery.body,
          secrets: secretsOf(delivery, deps.box, startedAt),
        },
        { timeoutMs: settings.timeoutMs, now: startedAt },
      )
    : { statusCode: null, error: 'the endpoint is disabled', retryAfterMs: undefined };
  const finishedAt = new Date();
  const succeeded = sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode < 300;
  const next =
    succeeded || !delivery.enabled
      ? undefined
      : nextAttemptAt(
          delivery.attempt,
          { now: finishedAt, giveUpAt: delivery.giveUpAt, retryAfterMs: sent.retryAfterMs },
          settings,
        );
  const kept = await recordAttempt(
    deps.db,
    { id: delivery.id, attempt: delivery.attempt, owner },
    {
      startedAt,
      statusCode: sent.statusCode,
      latencyMs: finishedAt.getTime() - startedAt.getTime(),
      error: sent.error,
      status: succeeded ? 'succeeded' : next === undefined ? 'failed' : 'pending',
      nextAttemptAt: next ?? null,
    },
  );
  if (!kept)
    deps.logger.warn(
      { delivery: delivery.id },
      'a webhook delivery lease ran out mid-attempt; another attempt owns it now',
    );
}

export function startWebhookWorker(deps: WebhookWorkerDependencies): WebhookWorker {
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  let lastPrune = 0;

  async function drain(): Promise<void> {
    for (;;) {
      const due = await claimDueDeliveries(deps.db, { owner, leaseMs: deps.settings.leaseMs, limit: CLAIM_BATCH });
      await Promise.all(due.map((delivery) => attemptDelivery(deps, owner, delivery)));
      if (due.length < CLAIM_BATCH || stopped) return;
    }
  }

  async function tick(): Promise<void> {
    try {
      await drain();
      if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await pruneDeliveries(deps.db, deps.settings.retentionDays);
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'the webhook delivery worker failed a round; it tries again');
    }
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
    timer.unref();
  }

  function run(): void {
    if (running !== undefined) return;
    running = tick().finally(() => {
      running = undefined;
      schedule(deps.settings.pollMs);
    });
  }

  schedule(0);
  return {
    wake: () => {
      if (running === undefined) schedule(0);
    },
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
