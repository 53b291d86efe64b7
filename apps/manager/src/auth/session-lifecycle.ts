import type { Request, Response } from 'express';
import { type SessionCookieSettings, sessionCookieOptions } from './session-middleware.js';

const USER_AGENT_MAX_LENGTH = 256;

function promisify(run: (done: (error?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
}

/** Starts a fresh session for the user: a new id at every sign-in, so a planted id is worth nothing. */
export async function startSession(req: Request, userId: string): Promise<void> {
  await promisify((done) => req.session.regenerate(done));
  req.session.userId = userId;
  // Shown in the user's list of sessions, so they can tell which one to end.
  req.session.signedInFrom = {
    userAgent: req.get('user-agent')?.slice(0, USER_AGENT_MAX_LENGTH) ?? null,
    ip: req.ip ?? null,
  };
  await promisify((done) => req.session.save(done));
}

export async function endSession(req: Request, res: Response, cookie: SessionCookieSettings): Promise<void> {
  if (req.session) await promisify((done) => req.session.destroy(done));
  res.clearCookie(cookie.cookieName, sessionCookieOptions(cookie));
}
