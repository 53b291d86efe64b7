// The delivery queue's statements, in SQL because Prisma can neither SKIP LOCKED nor fence an update
// on the lease it claimed. Every manager replica claims from it; a claim is a lease, so a manager killed
// mid-delivery leaves a row that another (or the restarted one) claims again once the lease runs out:
// at least once, with the same webhook-id.
import type { Db } from '@agentplane/db';

export type ClaimedDelivery = {
  id: string;
  messageId: string;
  /** The stored payload's text, sent byte for byte: the signature is over these bytes. */
  body: string;
  attempt: number;
  giveUpAt: Date;
  createdAt: Date;
  url: string;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
};

/** What one attempt came to; `next` undefined makes the delivery final. */
export type AttemptOutcome = {
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  status: 'pending' | 'succeeded' | 'failed';
  nextAttemptAt: Date | null;
};

/**
 * Leases up to `limit` due deliveries to `owner` for `leaseMs`, counting the attempt now: a manager
 * that dies mid-send has still spent it. SKIP LOCKED lets replicas claim side by side; a lease that
 * ran out (its manager gone) is due again.
 */
export async function claimDueDeliveries(
  db: Db,
  { owner, leaseMs, limit }: { owner: string; leaseMs: number; limit: number },
): Promise<ClaimedDelivery[]> {
  return db.$queryRaw<ClaimedDelivery[]>`
    WITH due AS (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())
      ORDER BY next_attempt_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED),
    claimed AS (
      UPDATE webhook_deliveries d
      SET lease_owner = ${owner}, lease_expires_at = now() + ${leaseMs}::float8 * interval '1 millisecond',
        attempts = d.attempts + 1
      FROM due WHERE d.id = due.id
      RETURNING d.id, d.endpoint_id, d.message_id, d.payload, d.attempts, d.give_up_at, d.created_at)
    SELECT c.id, c.message_id AS "messageId", c.payload::text AS body, c.attempts AS attempt,
      c.give_up_at AS "giveUpAt", c.created_at AS "createdAt", e.url, e.enabled, e.secret,
      e.previous_secret AS "previousSecret", e.previous_secret_expires_at AS "previousSecretExpiresAt"
    FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id`;
}

/**
 * Stores an attempt and where it leaves the delivery, only while `owner` still holds this attempt's
 * lease; false when it was lost (the lease ran out and another manager claimed it), and nothing is written.
 */
export async function recordAttempt(
  db: Db,
  delivery: { id: string; attempt: number; owner: string },
  outcome: AttemptOutcome,
): Promise<boolean> {
  const final = outcome.status !== 'pending';
  const rows = await db.$queryRaw<{ id: string }[]>`
    WITH updated AS (
      UPDATE webhook_deliveries
      SET status = ${outcome.status}, next_attempt_at = COALESCE(${outcome.nextAttemptAt}::timestamptz, next_attempt_at),
        lease_owner = NULL, lease_expires_at = NULL, last_status_code = ${outcome.statusCode}::int,
        last_latency_ms = ${outcome.latencyMs}::int, last_error = ${outcome.error},
        finished_at = CASE WHEN ${final} THEN now() END
      WHERE id = ${delivery.id}::uuid AND lease_owner = ${delivery.owner} AND attempts = ${delivery.attempt}
      RETURNING id)
    INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
    SELECT id, ${delivery.attempt}::int, ${outcome.startedAt}::timestamptz, ${outcome.statusCode}::int,
      ${outcome.latencyMs}::int, ${outcome.error}
    FROM updated
    RETURNING delivery_id AS id`;
  return rows.length > 0;
}

/** Finished deliveries kept per endpoint at most, newest first, whatever their age. */
export const MAX_FINISHED_DELIVERIES_PER_ENDPOINT = 1000;

/** Drops finished deliveries past the retention or past the per-endpoint cap; pending ones end within a day. */
export async function pruneDeliveries(db: Db, retentionDays: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM webhook_deliveries d
    WHERE d.status <> 'pending' AND (
      d.created_at < now() - ${retentionDays}::int * interval '1 day'
      OR d.id IN (
        SELECT id FROM (
          SELECT id, row_number() OVER (PARTITION BY endpoint_id ORDER BY created_at DESC) AS newest
          FROM webhook_deliveries WHERE status <> 'pending') ranked
        WHERE newest > ${MAX_FINISHED_DELIVERIES_PER_ENDPOINT}))`;
}
