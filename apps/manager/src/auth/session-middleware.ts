import type { Db } from '@agentplane/db';
import session from 'express-session';
import type { ManagerConfig } from '../config.js';
import { PrismaSessionStore, SESSION_ABSOLUTE_MS } from './session-store.js';

export const SESSION_COOKIE = 'sid';

export function createSessionMiddleware(db: Db, config: ManagerConfig['session'], store = new PrismaSessionStore(db)) {
  return session({
    name: SESSION_COOKIE,
    secret: config.secrets,
    store,
    resave: false,
    // No row and no cookie until someone signs in.
    saveUninitialized: false,
    // The cookie lives as long as a session can (7 days); the 24 h idle expiry is kept on the server,
    // where every request pushes it ahead, so responses need not re-send the cookie.
    rolling: false,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.secureCookie,
      maxAge: SESSION_ABSOLUTE_MS,
      path: '/',
    },
  });
}
