import { ZLoginBody, ZMe, ZSignupBody } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { RequestHandler } from 'express';
import type { ManagerConfig } from '../config.js';
import type { ApiRouter } from '../http/api-router.js';
import { currentUserId } from '../http/request-context.js';
import { authenticate, readMe, signUp } from './auth-service.js';
import { endSession, startSession } from './session-lifecycle.js';

export type AuthRouteDependencies = {
  db: Db;
  config: Pick<ManagerConfig, 'allowSignup' | 'session'>;
  rateLimits: RequestHandler[];
};

const TAG = 'auth';

export function addAuthRoutes(api: ApiRouter, { db, config, rateLimits }: AuthRouteDependencies): void {
  // The limits run before the routes' own handlers: they are mounted on the exact paths first.
  api.router.post(['/auth/signup', '/auth/login'], ...rateLimits);

  api.add(
    {
      method: 'post',
      path: '/auth/signup',
      operationId: 'signUp',
      summary: 'Create an account with a personal workspace, and sign in',
      tag: TAG,
      access: { kind: 'public' },
      body: ZSignupBody,
      responses: { 201: { description: 'Signed up and signed in; sets the sid cookie', schema: ZMe } },
      problems: { 403: 'Sign-up is disabled', 409: 'The email is already registered', 429: 'Too many attempts' },
    },
    async ({ body }, req, res) => {
      if (!config.allowSignup) throw new AppError('forbidden', 'Sign-up is disabled on this deployment.');
      const { userId } = await signUp(db, body);
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
      responses: { 200: { description: 'Signed in; sets the sid cookie', schema: ZMe } },
      problems: { 401: 'Wrong email or password', 429: 'Too many attempts' },
    },
    async ({ body }, req, res) => {
      const userId = await authenticate(db, body);
      if (!userId) throw new AppError('unauthorized', 'The email or password is incorrect.');
      await startSession(req, userId);
      res.json(await readMe(db, userId));
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
      await endSession(req, res, { secure: config.session.secureCookie });
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
