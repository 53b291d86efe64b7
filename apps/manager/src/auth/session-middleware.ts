import type { Db } from '@agentplane/db';
import session from 'express-session';
import type { ManagerConfig } from '../config.js';
import { PrismaSessionStore, SESSION_IDLE_MS } from './session-store.js';

export const SESSION_COOKIE = 'sid';

export function createSessionMiddleware(db: Db, config: ManagerConfig['session'], store = new PrismaSessionStore(db)) {
  return session({
    name: SESSION_COOKIE,
    secret: config.secrets,
    store,
    resave: false,
    // No row and no cookie until someone signs in.
    saveUninitialized: false,
    // Each response pushes the idle expiry 24 h ahead; the store caps the total at 7 days.
    rolling: true,
    cookie: {
      httpOnly: true,
      sameSite: 'lax',
      secure: config.secureCookie,
      maxAge: SESSION_IDLE_MS,
      path: '/',
    },
  });
}
