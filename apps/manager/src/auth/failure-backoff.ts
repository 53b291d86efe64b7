// Failed attempts back off per account and address: after `failuresBeforeBackoff` attempts in a row
// that did not succeed, each further one must wait twice as long as the one before, up to a cap. Never
// per account alone, so an attacker's failures from one address cannot lock the real user out from
// another; the per-address limit (rate-limits.ts) bounds how many accounts one address may try.
import { createHash } from 'node:crypto';
import { type Db, Prisma } from '@agentplane/db';
import { tooManyAttempts } from './rate-limits.js';

export type BackoffSettings = {
  failuresBeforeBackoff: number;
  baseMs: number;
  maxMs: number;
  /** A count is forgotten after this long without attempts, once its backoff has ended. */
  forgetAfterMs: number;
};

/** An attempt at `action` on `account` (a normalised email or a user id) from the address `ip`. */
export type AttemptSubject = { action: 'login' | 'signup' | 'password'; account: string; ip: string | undefined };

/** The counter's key. The account is hashed, so that no raw input, valid or not, is stored. */
export function backoffKey({ action, account, ip }: AttemptSubject): string {
  return `auth-backoff:${action}:${createHash('sha256').update(account).digest('hex')}:${ip ?? 'unknown'}`;
}

export class FailureBackoff {
  constructor(
    private readonly db: Db,
    private readonly settings: BackoffSettings,
  ) {}

  /**
   * Counts the attempt before it is made, so that attempts racing each other are all counted (one that
   * succeeds clears the count), or throws 429 with Retry-After while the subject waits out a backoff;
   * an attempt refused so is not counted.
   */
  async begin(subject: AttemptSubject): Promise<void> {
    const key = backoffKey(subject);
    const { failuresBeforeBackoff: threshold, baseMs, maxMs, forgetAfterMs } = this.settings;
    const blockedUntil = (hits: Prisma.Sql) => Prisma.sql`
      CASE WHEN ${hits} >= ${threshold}::int THEN now() + make_interval(secs =>
        LEAST(${maxMs}::float8, ${baseMs}::float8 * power(2::float8, LEAST(${hits} - ${threshold}::int, 40))) / 1000)
      END`;
    const resetAt = (hits: Prisma.Sql) =>
      Prisma.sql`COALESCE(${blockedUntil(hits)}, now()) + make_interval(secs => ${forgetAfterMs}::float8 / 1000)`;
    const first = Prisma.sql`1`;
    const next = Prisma.sql`(CASE WHEN c.reset_at <= now() THEN 1 ELSE c.hits + 1 END)`;
    // One statement: the row lock makes concurrent attempts count one after another, and the WHERE
    // leaves a waiting subject's row as it is (no row returned).
    const counted = await this.db.$queryRaw<{ hits: number }[]>`
      INSERT INTO rate_limit_counters AS c (key, hits, reset_at, blocked_until)
      VALUES (${key}, 1, ${resetAt(first)}, ${blockedUntil(first)})
      ON CONFLICT (key) DO UPDATE SET
        hits = ${next}, blocked_until = ${blockedUntil(next)}, reset_at = ${resetAt(next)}
      WHERE c.blocked_until IS NULL OR c.blocked_until <= now()
      RETURNING hits`;
    if (counted.length > 0) return;
    const waiting = await this.db.rateLimitCounter.findUnique({ where: { key }, select: { blockedUntil: true } });
    throw tooManyAttempts(waiting?.blockedUntil ?? undefined);
  }

  /** Clears the subject's count after a success. */
  async succeeded(subject: AttemptSubject): Promise<void> {
    await this.db.rateLimitCounter.deleteMany({ where: { key: backoffKey(subject) } });
  }
}
