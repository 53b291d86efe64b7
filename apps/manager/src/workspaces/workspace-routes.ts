import {
  ZMember,
  ZMemberParams,
  ZMemberUpdateBody,
  ZPaginationQuery,
  ZWorkspace,
  ZWorkspaceBody,
  ZWorkspaceIdParams,
  ZWorkspaceUpdate,
} from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentActor, currentUserId, currentWorkspace } from '../http/request-context.js';
import type { ResourceRouteDependencies } from '../resources/resource-routes.js';
import { changeMemberRole, listMembers, removeMember } from './member-service.js';
import {
  createWorkspace,
  deleteWorkspace,
  getWorkspace,
  listWorkspaces,
  updateWorkspace,
} from './workspace-service.js';

const TAG = 'workspaces';
const NOT_FOUND = { 404: 'No such workspace, or you are not a member' };

/** What a change of the default guardrails republishes the workspace's agents with. */
export type WorkspaceRouteDependencies = Pick<
  ResourceRouteDependencies,
  'db' | 'box' | 'agentKeys' | 'prices' | 'enginePools' | 'publishMetrics' | 'versionRetention'
>;

export function addWorkspaceRoutes(api: ApiRouter, deps: WorkspaceRouteDependencies): void {
  const { db } = deps;
  api.add(
    {
      method: 'get',
      path: '/workspaces/',
      operationId: 'listWorkspaces',
      summary: 'The workspaces you are a member of, with your role in each',
      tag: TAG,
      access: { kind: 'session' },
      query: ZPaginationQuery,
      responses: {
        200: { description: 'A page of workspaces', schema: z.array(ZWorkspace), headers: ZTotalCountHeader },
      },
    },
    async ({ query }, req, res) => {
      sendPage(res, await listWorkspaces(db, { userId: currentUserId(req), ...query }));
    },
  );
  api.add(
    {
      method: 'post',
      path: '/workspaces/',
      operationId: 'createWorkspace',
      summary: 'Create a workspace; you become its owner',
      tag: TAG,
      access: { kind: 'session' },
      body: ZWorkspaceBody,
      responses: { 201: { description: 'The new workspace', schema: ZWorkspace } },
    },
    async ({ body }, req, res) => {
      res.status(201).json(await createWorkspace(db, { userId: currentUserId(req), name: body.name }));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/workspaces/:id',
      operationId: 'getWorkspace',
      summary: 'A workspace you are a member of',
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'viewer' },
      params: ZWorkspaceIdParams,
      responses: { 200: { description: 'The workspace', schema: ZWorkspace } },
      problems: NOT_FOUND,
    },
    async (_input, req, res) => {
      res.json(await getWorkspace(db, currentWorkspace(req)));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/workspaces/:id',
      operationId: 'updateWorkspace',
      summary:
        'Rename a workspace, set where its new agents are served, or set the guardrails all its agents apply (admin or owner)',
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'admin' },
      params: ZWorkspaceIdParams,
      body: ZWorkspaceUpdate,
      responses: { 200: { description: 'The updated workspace', schema: ZWorkspace } },
      problems: {
        ...NOT_FOUND,
        403: 'You are not an admin or owner of the workspace',
        422: "Body failed validation, default_deployment names a pool the operator does not serve, default_guardrail_ids names a guardrail not in the workspace, or an agent's engine_config would be too large (path engine_config)",
      },
    },
    async ({ body }, req, res) => {
      const workspace = await updateWorkspace(db, {
        ...currentWorkspace(req),
        name: body.name,
        defaultDeployment: body.default_deployment,
        defaultGuardrailIds: body.default_guardrail_ids,
        publish: {
          box: deps.box,
          agentKeys: deps.agentKeys,
          prices: deps.prices,
          poolUrls: deps.enginePools.urls,
          metrics: deps.publishMetrics,
          change: { cause: 'guardrails', authorId: currentUserId(req) },
          versionRetention: deps.versionRetention,
        },
      });
      res.json(workspace);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/workspaces/:id',
      operationId: 'deleteWorkspace',
      summary: 'Delete a workspace with all its agents and resources (owner only)',
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'owner' },
      params: ZWorkspaceIdParams,
      responses: { 204: { description: 'Deleted' } },
      problems: { ...NOT_FOUND, 403: 'You are not an owner of the workspace' },
    },
    async (_input, req, res) => {
      await deleteWorkspace(db, currentWorkspace(req));
      res.status(204).end();
    },
  );

  addMemberRoutes(api, db);
}

function addMemberRoutes(api: ApiRouter, db: Db): void {
  const MEMBER_TAG = 'members';
  api.add(
    {
      method: 'get',
      path: '/workspaces/:id/members/',
      operationId: 'listMembers',
      summary: 'The members of a workspace',
      tag: MEMBER_TAG,
      access: { kind: 'workspace-path', minRole: 'viewer' },
      params: ZWorkspaceIdParams,
      query: ZPaginationQuery,
      responses: { 200: { description: 'A page of members', schema: z.array(ZMember), headers: ZTotalCountHeader } },
      problems: NOT_FOUND,
    },
    async ({ query }, req, res) => {
      sendPage(res, await listMembers(db, { workspaceId: currentWorkspace(req).id, ...query }));
    },
  );
  api.add(
    {
      method: 'patch',
      path: '/workspaces/:id/members/:user_id',
      operationId: 'updateMember',
      summary: "Change a member's role (admin or owner; only owners touch the owner role)",
      tag: MEMBER_TAG,
      access: { kind: 'workspace-path', minRole: 'admin' },
      params: ZMemberParams,
      body: ZMemberUpdateBody,
      responses: { 200: { description: 'The member with the new role', schema: ZMember } },
      problems: { ...NOT_FOUND, 403: 'Too low a role', 409: 'That would leave the workspace without an owner' },
    },
    async ({ params, body }, req, res) => {
      const member = await changeMemberRole(db, {
        workspaceId: currentWorkspace(req).id,
        actor: currentActor(req),
        userId: params.user_id,
        role: body.role,
      });
      res.json(member);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/workspaces/:id/members/:user_id',
      operationId: 'removeMember',
      summary: 'Remove a member (admin or owner), or leave the workspace yourself',
      tag: MEMBER_TAG,
      access: { kind: 'workspace-path', minRole: 'viewer' },
      params: ZMemberParams,
      responses: { 204: { description: 'Removed' } },
      problems: { ...NOT_FOUND, 403: 'Too low a role', 409: 'That would leave the workspace without an owner' },
    },
    async ({ params }, req, res) => {
      await removeMember(db, {
        workspaceId: currentWorkspace(req).id,
        actor: currentActor(req),
        userId: params.user_id,
      });
      res.status(204).end();
    },
  );
}
