import { ZPaginationQuery, ZSessionInfo, ZSessionParams } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { z } from 'zod';
import type { ManagerConfig } from '../config.js';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentUserId } from '../http/request-context.js';
import { endMySession, endMySessions, listMySessions } from './my-sessions.js';
import { endSession } from './session-lifecycle.js';

const TAG = 'auth';

export function addSessionRoutes(
  api: ApiRouter,
  { db, config }: { db: Db; config: Pick<ManagerConfig, 'session'> },
): void {
  api.add(
    {
      method: 'get',
      path: '/auth/sessions/',
      operationId: 'listMySessions',
      summary: 'Your open sessions, oldest first, this one marked current',
      tag: TAG,
      access: { kind: 'session' },
      query: ZPaginationQuery,
      responses: {
        200: { description: 'A page of sessions', schema: z.array(ZSessionInfo), headers: ZTotalCountHeader },
      },
    },
    async ({ query }, req, res) => {
      sendPage(res, await listMySessions(db, { userId: currentUserId(req), currentSid: req.sessionID, ...query }));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/auth/sessions/:id',
      operationId: 'endMySession',
      summary: 'End one of your sessions (this one too: that signs you out)',
      tag: TAG,
      access: { kind: 'session' },
      params: ZSessionParams,
      responses: { 204: { description: 'Ended; its cookie no longer works' } },
      problems: { 404: 'No such session of yours' },
    },
    async ({ params }, req, res) => {
      const sid = await endMySession(db, { userId: currentUserId(req), handle: params.id });
      if (sid === req.sessionID) await endSession(req, res, config.session);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/logout-all',
      operationId: 'logOutEverywhere',
      summary: 'End every session of yours, this one included',
      tag: TAG,
      access: { kind: 'session' },
      responses: { 204: { description: 'Signed out everywhere' } },
    },
    async (_input, req, res) => {
      await endMySessions(db, { userId: currentUserId(req) });
      await endSession(req, res, config.session);
      res.status(204).end();
    },
  );
}
