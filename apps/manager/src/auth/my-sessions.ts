// A user's view of their own sessions: list them, end one, end all. Sessions are named by a hash of
// their id, so the list never hands out what a cookie carries.
import { createHash } from 'node:crypto';
import type { TSessionInfo } from '@agentplane/contracts';
import type { Db, Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { SessionData } from 'express-session';
import { SESSION_ABSOLUTE_MS } from './session-store.js';

export function sessionHandle(sid: string): string {
  return createHash('sha256').update(sid).digest('hex');
}

type SessionRow = { sid: string; data: unknown; createdAt: Date; expiresAt: Date; lastSeenAt: Date };

function toSessionInfo(row: SessionRow, currentSid: string): TSessionInfo {
  const signedInFrom = (row.data as Partial<SessionData> | null)?.signedInFrom;
  const absoluteEnd = row.createdAt.getTime() + SESSION_ABSOLUTE_MS;
  return {
    id: sessionHandle(row.sid),
    current: row.sid === currentSid,
    created_at: row.createdAt.toISOString(),
    last_seen_at: row.lastSeenAt.toISOString(),
    expires_at: new Date(Math.min(row.expiresAt.getTime(), absoluteEnd)).toISOString(),
    user_agent: signedInFrom?.userAgent ?? null,
    ip_address: signedInFrom?.ip ?? null,
  };
}

export async function listMySessions(
  db: Db,
  options: { userId: string; currentSid: string; limit: number; offset: number },
) {
  const now = Date.now();
  const where = {
    userId: options.userId,
    expiresAt: { gt: new Date(now) },
    createdAt: { gt: new Date(now - SESSION_ABSOLUTE_MS) },
  };
  const [rows, total] = await Promise.all([
    db.session.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { sid: 'asc' }],
      take: options.limit,
      skip: options.offset,
      select: { sid: true, data: true, createdAt: true, expiresAt: true, lastSeenAt: true },
    }),
    db.session.count({ where }),
  ]);
  return { items: rows.map((row) => toSessionInfo(row, options.currentSid)), total };
}

/** Ends the user's session named `handle`, and returns its id; another user's is not found (404). */
export async function endMySession(db: Db, options: { userId: string; handle: string }): Promise<string> {
  const sessions = await db.session.findMany({ where: { userId: options.userId }, select: { sid: true } });
  const target = sessions.find(({ sid }) => sessionHandle(sid) === options.handle);
  if (!target) throw new AppError('not_found', 'No such session.');
  await db.session.deleteMany({ where: { sid: target.sid, userId: options.userId } });
  return target.sid;
}

/** Ends every session of the user but `keepSid` (none kept when it is undefined). */
export async function endMySessions(db: Db | Tx, options: { userId: string; keepSid?: string }): Promise<void> {
  await db.session.deleteMany({
    where: { userId: options.userId, ...(options.keepSid === undefined ? {} : { sid: { not: options.keepSid } }) },
  });
}
