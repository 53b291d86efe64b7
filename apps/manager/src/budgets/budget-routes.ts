// GET/PUT/DELETE /agents/{id}/budget and /workspaces/{id}/budget. Every member reads a budget and its
// spend; setting or removing one is for admins and owners, as it decides whether the agents may run.
import { ZBudget, ZBudgetStatus, ZWorkspaceIdParams } from '@agentplane/contracts';
import type { Request } from 'express';
import type { ApiRouter } from '../http/api-router.js';
import { currentWorkspace } from '../http/request-context.js';
import { type ResourceRouteDependencies, ZIdParams } from '../resources/resource-routes.js';
import {
  type BudgetContext,
  getAgentBudget,
  getWorkspaceBudget,
  setAgentBudget,
  setWorkspaceBudget,
} from './budget-service.js';

export type BudgetRouteDependencies = ResourceRouteDependencies & { now: () => number };

const TAG = 'budgets';
const AGENT_NOT_FOUND = { 404: 'No agent with this id in the workspace' };
const WORKSPACE_NOT_FOUND = { 404: 'No such workspace' };
const ADMIN_ONLY = { 403: 'You are not an admin or owner of the workspace' };
const STATUS = { description: 'The budget and its current period', schema: ZBudgetStatus };

export function addBudgetRoutes(api: ApiRouter, deps: BudgetRouteDependencies): void {
  const contextOf = (req: Request): BudgetContext => ({ ...deps, workspaceId: currentWorkspace(req).id });

  api.add(
    {
      method: 'get',
      path: '/agents/:id/budget',
      operationId: 'getAgentBudget',
      summary: "An agent's budget and what its current UTC period spent",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      responses: { 200: STATUS },
      problems: AGENT_NOT_FOUND,
    },
    async ({ params }, req, res) => {
      res.json(await getAgentBudget(contextOf(req), params.id));
    },
  );

  api.add(
    {
      method: 'put',
      path: '/agents/:id/budget',
      operationId: 'setAgentBudget',
      summary: "Set an agent's budget (admin or owner); its engine_config is republished",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'admin' },
      params: ZIdParams,
      body: ZBudget,
      responses: { 200: STATUS },
      problems: { ...AGENT_NOT_FOUND, ...ADMIN_ONLY },
    },
    async ({ params, body }, req, res) => {
      const ctx = contextOf(req);
      await setAgentBudget(ctx, params.id, body);
      res.json(await getAgentBudget(ctx, params.id));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/agents/:id/budget',
      operationId: 'deleteAgentBudget',
      summary: "Remove an agent's budget (admin or owner); its engine_config is republished",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'admin' },
      params: ZIdParams,
      responses: { 204: { description: 'Removed (also when there was none)' } },
      problems: { ...AGENT_NOT_FOUND, ...ADMIN_ONLY },
    },
    async ({ params }, req, res) => {
      await setAgentBudget(contextOf(req), params.id, null);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'get',
      path: '/workspaces/:id/budget',
      operationId: 'getWorkspaceBudget',
      summary: "A workspace's budget (across its agents) and what its current UTC period spent",
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'viewer' },
      params: ZWorkspaceIdParams,
      responses: { 200: STATUS },
      problems: WORKSPACE_NOT_FOUND,
    },
    async (_input, req, res) => {
      res.json(await getWorkspaceBudget(contextOf(req)));
    },
  );

  api.add(
    {
      method: 'put',
      path: '/workspaces/:id/budget',
      operationId: 'setWorkspaceBudget',
      summary: "Set a workspace's budget (admin or owner); every agent's engine_config is republished",
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'admin' },
      params: ZWorkspaceIdParams,
      body: ZBudget,
      responses: { 200: STATUS },
      problems: { ...WORKSPACE_NOT_FOUND, ...ADMIN_ONLY },
    },
    async ({ body }, req, res) => {
      const ctx = contextOf(req);
      await setWorkspaceBudget(ctx, body);
      res.json(await getWorkspaceBudget(ctx));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/workspaces/:id/budget',
      operationId: 'deleteWorkspaceBudget',
      summary: "Remove a workspace's budget (admin or owner); every agent's engine_config is republished",
      tag: TAG,
      access: { kind: 'workspace-path', minRole: 'admin' },
      params: ZWorkspaceIdParams,
      responses: { 204: { description: 'Removed (also when there was none)' } },
      problems: { ...WORKSPACE_NOT_FOUND, ...ADMIN_ONLY },
    },
    async (_input, req, res) => {
      await setWorkspaceBudget(contextOf(req), null);
      res.status(204).end();
    },
  );
}
