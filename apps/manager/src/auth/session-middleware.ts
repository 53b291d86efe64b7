import type { Db } from '@agentplane/db';
import session from 'express-session';
import type { ManagerConfig } from '../config.js';
import { PrismaSessionStore, SESSION_ABSOLUTE_MS } from './session-store.js';

export type SessionCookieSettings = Pick<ManagerConfig['session'], 'cookieName' | 'secureCookie' | 'sameSite'>;

/** The attributes the cookie is set with; clearing it must repeat them, or browsers keep it. */
export function sessionCookieOptions(config: SessionCookieSettings) {
  return { path: '/', httpOnly: true, sameSite: config.sameSite, secure: config.secureCookie } as const;
}

export function createSessionMiddleware(db: Db, config: ManagerConfig['session'], store = new PrismaSessionStore(db)) {
  return session({
    name: config.cookieName,
    secret: config.secrets,
    store,
    resave: false,
    // No row and no cookie until someone signs in.
    saveUninitialized: false,
    // The cookie lives as long as a session can (7 days); the 24 h idle expiry is kept on the server,
    // where every request pushes it ahead, so responses need not re-send the cookie.
    rolling: false,
    cookie: { ...sessionCookieOptions(config), maxAge: SESSION_ABSOLUTE_MS },
  });
}
