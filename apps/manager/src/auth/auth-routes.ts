import { ZLoginBody, ZMe, ZPasswordChangeBody, ZSignupBody } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';
import type { ManagerConfig } from '../config.js';
import type { ApiRouter } from '../http/api-router.js';
import { currentUserId } from '../http/request-context.js';
import { authenticate, changePassword, readMe, signUp } from './auth-service.js';
import type { FailureBackoff } from './failure-backoff.js';
import { endSession, startSession } from './session-lifecycle.js';

export type AuthRouteDependencies = {
  db: Db;
  config: Pick<ManagerConfig, 'allowSignup' | 'session'>;
  /** Counts every attempt against the caller's address, before the body is read. */
  addressLimit: RequestHandler;
  /** Backs off failures per account and address, once the body is valid. */
  backoff: FailureBackoff;
};

const TAG = 'auth';
const TOO_MANY = 'Too many attempts from this address, or failures for this account from it; see Retry-After';

export function addAuthRoutes(api: ApiRouter, { db, config, addressLimit, backoff }: AuthRouteDependencies): void {
  // The limit runs before the routes' own handlers: it is mounted on the exact paths first.
  api.router.post(['/auth/signup', '/auth/login', '/auth/password'], addressLimit);
  const cookie = config.session.cookieName;

  api.add(
    {
      method: 'post',
      path: '/auth/signup',
      operationId: 'signUp',
      summary: 'Create an account with a personal workspace, and sign in',
      tag: TAG,
      access: { kind: 'public' },
      body: ZSignupBody,
      responses: { 201: { description: `Signed up and signed in; sets the ${cookie} cookie`, schema: ZMe } },
      problems: {
        403: 'Sign-up is disabled',
        // Kept because there is no email channel to answer through instead; rate-limited like sign-in.
        409: 'The email is already registered',
        429: TOO_MANY,
      },
    },
    async ({ body }, req, res) => {
      if (!config.allowSignup) throw new AppError('forbidden', 'Sign-up is disabled on this deployment.');
      const attempt = { action: 'signup', account: body.email, ip: req.ip } as const;
      await backoff.begin(attempt);
      const { userId } = await signUp(db, body);
      await backoff.succeeded(attempt);
      await startSession(req, userId);
      res.status(201).json(await readMe(db, userId));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/login',
      operationId: 'logIn',
      summary: 'Sign in with email and password',
      tag: TAG,
      access: { kind: 'public' },
      body: ZLoginBody,
      responses: { 200: { description: `Signed in; sets the ${cookie} cookie`, schema: ZMe } },
      problems: { 401: 'Wrong email or password', 429: TOO_MANY },
    },
    async ({ body }, req, res) => {
      const attempt = { action: 'login', account: body.email, ip: req.ip } as const;
      await backoff.begin(attempt);
      const userId = await authenticate(db, body);
      if (!userId) throw new AppError('unauthorized', 'The email or password is incorrect.');
      await backoff.succeeded(attempt);
      await startSession(req, userId);
      res.json(await readMe(db, userId));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/password',
      operationId: 'changePassword',
      summary: 'Change your password; every other session of yours ends',
      tag: TAG,
      access: { kind: 'session' },
      body: ZPasswordChangeBody,
      responses: {
        204: { description: `Changed; this session goes on under a new id (sets the ${cookie} cookie)` },
      },
      problems: { 403: 'The current password is incorrect', 429: TOO_MANY },
    },
    async ({ body }, req, res) => {
      const userId = currentUserId(req);
      const attempt = { action: 'password', account: userId, ip: req.ip } as const;
      await backoff.begin(attempt);
      await changePassword(db, {
        userId,
        currentPassword: body.current_password,
        newPassword: body.new_password,
        keepSid: req.sessionID,
      });
      await backoff.succeeded(attempt);
      await startSession(req, userId);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/logout',
      operationId: 'logOut',
      summary: 'Sign out, ending the session on the server',
      tag: TAG,
      access: { kind: 'public' },
      responses: { 204: { description: 'Signed out (also when no session was open)' } },
    },
    async (_input, req, res) => {
      await endSession(req, res, config.session);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'get',
      path: '/auth/me',
      operationId: 'getMe',
      summary: 'The signed-in user and their workspaces',
      tag: TAG,
      access: { kind: 'session' },
      responses: { 200: { description: 'The signed-in user', schema: ZMe } },
    },
    async (_input, req, res) => {
      res.json(await readMe(db, currentUserId(req)));
    },
  );
}
