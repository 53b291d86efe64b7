// express-rate-limit's counters in PostgreSQL, so the limits hold across every manager replica.
import type { Db } from '@agentplane/db';
import type { IncrementResponse, Options, Store } from 'express-rate-limit';

export class PostgresRateLimitStore implements Store {
  readonly localKeys = false;
  private windowMs = 60_000;

  constructor(
    private readonly db: Db,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<IncrementResponse> {
    // One statement, so concurrent attempts can neither lose a hit nor both start a new window.
    const rows = await this.db.$queryRaw<{ hits: number; reset_at: Date }[]>`
      INSERT INTO rate_limit_counters (key, hits, reset_at)
      VALUES (${this.prefix + key}, 1, now() + make_interval(secs => ${this.windowMs / 1000}))
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN rate_limit_counters.reset_at <= now() THEN 1 ELSE rate_limit_counters.hits + 1 END,
        reset_at = CASE WHEN rate_limit_counters.reset_at <= now() THEN EXCLUDED.reset_at
                        ELSE rate_limit_counters.reset_at END
      RETURNING hits, reset_at`;
    const row = rows[0];
    if (!row) throw new Error('rate limit counter upsert returned no row');
    return { totalHits: row.hits, resetTime: row.reset_at };
  }

  async decrement(key: string): Promise<void> {
    await this.db.$executeRaw`
      UPDATE rate_limit_counters SET hits = GREATEST(hits - 1, 0)
      WHERE key = ${this.prefix + key} AND reset_at > now()`;
  }

  async resetKey(key: string): Promise<void> {
    await this.db.rateLimitCounter.deleteMany({ where: { key: this.prefix + key } });
  }
}

export async function pruneRateLimitCounters(db: Db): Promise<number> {
  const { count } = await db.rateLimitCounter.deleteMany({ where: { resetAt: { lte: new Date() } } });
  return count;
}
