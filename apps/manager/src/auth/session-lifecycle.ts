import type { Request, Response } from 'express';
import { SESSION_COOKIE } from './session-middleware.js';

function promisify(run: (done: (error?: unknown) => void) => void): Promise<void> {
  return new Promise((resolve, reject) => run((error) => (error ? reject(error) : resolve())));
}

/** Starts a fresh session for the user: a new id at every sign-in, so a planted id is worth nothing. */
export async function startSession(req: Request, userId: string): Promise<void> {
  await promisify((done) => req.session.regenerate(done));
  req.session.userId = userId;
  await promisify((done) => req.session.save(done));
}

export async function endSession(req: Request, res: Response, cookie: { secure: boolean }): Promise<void> {
  if (req.session) await promisify((done) => req.session.destroy(done));
  res.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: cookie.secure });
}
