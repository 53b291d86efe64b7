import {
  ZInvitation,
  ZInvitationCreated,
  ZInvitationParams,
  ZInvitationTokenParams,
  ZMemberAddBody,
  ZPaginationQuery,
  ZWorkspace,
  ZWorkspaceIdParams,
} from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentActor, currentUserId, currentWorkspace } from '../http/request-context.js';
import { acceptInvitation, inviteMember, listInvitations, revokeInvitation } from './invitation-service.js';

const TAG = 'invitations';
const NOT_FOUND = { 404: 'No such workspace, or you are not a member' };

export function addInvitationRoutes(api: ApiRouter, { db, ttlSeconds }: { db: Db; ttlSeconds: number }): void {
  api.add(
    {
      method: 'post',
      path: '/workspaces/:id/members/',
      operationId: 'addMember',
      summary:
        'Invite an email to the workspace with a role (admin or owner; only owners invite owners). Nobody ' +
        'becomes a member until they accept. The answer is the same whether or not an account uses the ' +
        'email, and carries the token once: the platform sends no email, so share it with the invitee.',
      tag: 'members',
      access: { kind: 'workspace-path', minRole: 'admin' },
      params: ZWorkspaceIdParams,
      body: ZMemberAddBody,
      responses: {
        201: { description: 'The invitation, with its token (shown only here)', schema: ZInvitationCreated },
      },
      problems: { ...NOT_FOUND, 403: 'Too low a role', 409: 'Already a member' },
    },
    async ({ body }, req, res) => {
      const invitation = await inviteMember(db, {
        workspaceId: currentWorkspace(req).id,
        actor: currentActor(req),
        ...body,
        ttlSeconds,
      });
      res.status(201).json(invitation);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/workspaces/:id/invitations/',
      operationId: 'listInvitations',
      summary: 'The invitations that can still be accepted (admin or owner), without their tokens',
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'admin' },
      params: ZWorkspaceIdParams,
      query: ZPaginationQuery,
      responses: {
        200: { description: 'A page of invitations', schema: z.array(ZInvitation), headers: ZTotalCountHeader },
      },
      problems: { ...NOT_FOUND, 403: 'Too low a role' },
    },
    async ({ query }, req, res) => {
      sendPage(res, await listInvitations(db, { workspaceId: currentWorkspace(req).id, ...query }));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/workspaces/:id/invitations/:invitation_id',
      operationId: 'revokeInvitation',
      summary:
        'Revoke an invitation, so its token no longer works (admin or owner; only owners revoke owner invitations)',
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'admin' },
      params: ZInvitationParams,
      responses: { 204: { description: 'Revoked' } },
      problems: { 404: 'No such workspace or invitation', 403: 'Too low a role' },
    },
    async ({ params }, req, res) => {
      await revokeInvitation(db, {
        workspaceId: currentWorkspace(req).id,
        actor: currentActor(req),
        invitationId: params.invitation_id,
      });
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'post',
      path: '/invitations/:token/accept',
      operationId: 'acceptInvitation',
      summary:
        'Accept an invitation: sign up or sign in with the invited email first; you become a member with the ' +
        'invited role. A token works once, until it expires or is revoked.',
      tag: TAG,
      access: { kind: 'session' },
      params: ZInvitationTokenParams,
      responses: { 200: { description: 'The workspace you joined, with your role', schema: ZWorkspace } },
      problems: {
        403: 'The invitation is for another email',
        404: 'No such invitation, or it expired, was used or was revoked',
        409: 'You are already a member',
      },
    },
    async ({ params }, req, res) => {
      res.json(await acceptInvitation(db, { token: params.token, userId: currentUserId(req) }));
    },
  );
}
