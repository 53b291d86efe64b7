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

// A secret sealed with a key SECRETS_KEY no longer holds cannot sign: the attempt is recorded as a
// failure like any other, so the delivery is retried and given up on in its day instead of being
// claimed again at every lease until the end of time.
const UNOPENABLE_SECRET = "the endpoint's signing secret cannot be opened with SECRETS_KEY";

async function send(deps: WebhookWorkerDependencies, delivery: ClaimedDelivery, startedAt: Date) {
  if (!delivery.enabled) return { statusCode: null, error: 'the endpoint is disabled', retryAfterMs: undefined };
  let secrets: string[];
  try {
    secrets = secretsOf(delivery, deps.box, startedAt);
  } catch {
    return { statusCode: null, error: UNOPENABLE_SECRET, retryAfterMs: undefined };
  }
  return sendWebhook(
    deps.egress,
    { url: delivery.url, messageId: delivery.messageId, body: delivery.body, secrets },
    { timeoutMs: deps.settings.timeoutMs, now: startedAt },
  );
}

async function attemptDelivery(deps: WebhookWorkerDependencies, owner: string, delivery: ClaimedDelivery) {
  const { settings } = deps;
  const startedAt = new Date();
  const sent = await send(deps, delivery, startedAt);
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
      // Settled, not all: one attempt whose outcome could not be stored (its lease then runs out and it
      // is claimed again) must not leave the rest of the batch running unawaited.
      const attempts = await Promise.allSettled(due.map((delivery) => attemptDelivery(deps, owner, delivery)));
      for (const attempt of attempts) {
        if (attempt.status === 'rejected') {
          deps.logger.warn({ err: attempt.reason }, 'a webhook attempt could not be recorded; its lease will run out');
        }
      }
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
