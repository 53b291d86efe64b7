// express-session's store on our own Prisma client and `sessions` table. Beyond the cookie's idle
// expiry it enforces an absolute lifetime, and keeps user_id so that a user's sessions go with them.
import type { Db } from '@agentplane/db';
import { perTurnLoader } from '@agentplane/server-kit';
import session, { type SessionData } from 'express-session';

export const SESSION_IDLE_MS = 24 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
// Every authenticated request extends the idle expiry (and moves last_seen_at); writing that to the
// database at most once a minute per session keeps reads from turning into writes without changing the
// 24 h rule noticeably.
const TOUCH_INTERVAL_MS = 60_000;
const MAX_TRACKED_TOUCHES = 50_000;

type Callback = (error?: unknown) => void;

// Every authenticated request needs this, so it goes straight to the pool as a prepared statement,
// for all the sessions that requests arriving together ask for.
const LOAD_SESSIONS_SQL = `
  SELECT s.sid, s.data, s.expires_at, s.created_at,
         COALESCE((SELECT json_agg(json_build_object('workspaceId', m.workspace_id, 'role', m.role)
                                   ORDER BY m.created_at, m.workspace_id)
                   FROM memberships m WHERE m.user_id = s.user_id), '[]'::json) AS memberships
  FROM sessions s WHERE s.sid = ANY($1::text[])`;

type SessionRow = {
  sid: string;
  data: SessionData;
  expires_at: Date;
  created_at: Date;
  memberships: NonNullable<SessionData['memberships']>;
};

export class PrismaSessionStore extends session.Store {
  private readonly lastTouched = new Map<string, number>();
  private readonly sessions = perTurnLoader<string, SessionRow | undefined>(async (sids) => {
    const rows = await this.db.sql<SessionRow>(LOAD_SESSIONS_SQL, [[...sids]]);
    const bySid = new Map(rows.map((row) => [row.sid, row]));
    return sids.map((sid) => bySid.get(sid));
  });

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  /**
   * Loads the session together with the user's memberships as they are now, in one round trip: every
   * request sees membership changes at once without a second query to find them.
   */
  override get(sid: string, callback: (error: unknown, session?: SessionData | null) => void): void {
    const loading = this.sessions.load(sid).then(async (row) => {
      if (!row) return null;
      const now = this.now();
      if (row.expires_at.getTime() <= now || row.created_at.getTime() + SESSION_ABSOLUTE_MS <= now) {
        await this.db.session.deleteMany({ where: { sid } });
        return null;
      }
      return { ...row.data, memberships: row.memberships };
    });
    this.settle(loading, callback);
  }

  override set(sid: string, data: SessionData, callback?: Callback): void {
    const expiresAt = this.idleExpiry();
    const lastSeenAt = new Date(this.now());
    // Memberships are read fresh with every load; storing a copy would only let it go stale.
    const { memberships: _fresh, ...stored } = data;
    const json = JSON.parse(JSON.stringify(stored));
    const saving = this.db.session
      .upsert({
        where: { sid },
        create: { sid, data: json, expiresAt, lastSeenAt, userId: data.userId ?? null },
        update: { data: json, expiresAt, lastSeenAt, userId: data.userId ?? null },
      })
      .then(() => {
        this.lastTouched.set(sid, this.now());
      });
    this.settle(saving, callback);
  }

  override touch(sid: string, _data: SessionData, callback?: Callback): void {
    const last = this.lastTouched.get(sid);
    if (last !== undefined && this.now() - last < TOUCH_INTERVAL_MS) {
      callback?.();
      return;
    }
    if (this.lastTouched.size >= MAX_TRACKED_TOUCHES) this.lastTouched.clear();
    this.lastTouched.set(sid, this.now());
    this.settle(
      this.db.session.updateMany({
        where: { sid },
        data: { expiresAt: this.idleExpiry(), lastSeenAt: new Date(this.now()) },
      }),
      callback,
    );
  }

  override destroy(sid: string, callback?: Callback): void {
    this.lastTouched.delete(sid);
    this.settle(this.db.session.deleteMany({ where: { sid } }), callback);
  }

  /** Removes expired rows; the manager runs it periodically. */
  async pruneExpired(): Promise<number> {
    const now = this.now();
    const { count } = await this.db.session.deleteMany({
      where: {
        OR: [{ expiresAt: { lte: new Date(now) } }, { createdAt: { lte: new Date(now - SESSION_ABSOLUTE_MS) } }],
      },
    });
    return count;
  }

  /**
   * Hands the outcome of `work` to express-session's callback exactly once. Chained as
   * `.then(callback).catch(callback)`, a callback that throws would be called again with its own error;
   * here its throw becomes the store's 'error' event, which the server logs.
   */
  private settle<T>(work: Promise<T>, callback: ((error: unknown, value?: T) => void) | undefined): void {
    void work
      .then(
        (value) => callback?.(null, value),
        (error: unknown) => callback?.(error),
      )
      .catch((thrown: unknown) => this.emit('error', thrown));
  }

  private idleExpiry(): Date {
    return new Date(this.now() + SESSION_IDLE_MS);
  }
}
