// GET/PUT/DELETE /agents/{id}/budget and /workspaces/{id}/budget: the same three routes for both
// scopes. Every member reads a budget and its spend; setting or removing one is for admins and owners,
// as it decides whether the agents may run.
import { type TBudget, type TBudgetStatus, ZBudget, ZBudgetStatus, ZWorkspaceIdParams } from '@agentplane/contracts';
import type { Request } from 'express';
import type { Access, ApiRouter } from '../http/api-router.js';
import { currentUserId, currentWorkspace } from '../http/request-context.js';
import { type ResourceRouteDependencies, ZIdParams } from '../resources/resource-routes.js';
import {
  type BudgetContext,
  getAgentBudget,
  getWorkspaceBudget,
  setAgentBudget,
  setWorkspaceBudget,
} from './budget-service.js';

export type BudgetRouteDependencies = ResourceRouteDependencies & { now: () => number };

type BudgetScopeRoutes = {
  /** Names the operations: getAgentBudget, setAgentBudget, deleteAgentBudget. */
  name: 'Agent' | 'Workspace';
  path: string;
  /** Who the budget belongs to, in the summaries. */
  owner: string;
  republished: string;
  access: (minRole: 'viewer' | 'admin') => Access;
  params: typeof ZIdParams | typeof ZWorkspaceIdParams;
  notFound: string;
  read: (ctx: BudgetContext, id: string) => Promise<TBudgetStatus>;
  write: (ctx: BudgetContext, id: string, budget: TBudget | null) => Promise<void>;
};

const SCOPES: BudgetScopeRoutes[] = [
  {
    name: 'Agent',
    path: '/agents/:id/budget',
    owner: "an agent's",
    republished: 'its engine_config is republished',
    access: (minRole) => ({ kind: 'workspace', minRole }),
    params: ZIdParams,
    notFound: 'No agent with this id in the workspace',
    read: getAgentBudget,
    write: setAgentBudget,
  },
  {
    name: 'Workspace',
    path: '/workspaces/:id/budget',
    owner: "a workspace's (across its agents)",
    republished: "every agent's engine_config is republished",
    access: (minRole) => ({ kind: 'workspace-path', minRole }),
    params: ZWorkspaceIdParams,
    notFound: 'No such workspace',
    read: (ctx) => getWorkspaceBudget(ctx),
    write: (ctx, _id, budget) => setWorkspaceBudget(ctx, budget),
  },
];

const ADMIN_ONLY = { 403: 'You are not an admin or owner of the workspace' };
const STATUS = { description: 'The budget and its current period', schema: ZBudgetStatus };

export function addBudgetRoutes(api: ApiRouter, deps: BudgetRouteDependencies): void {
  const contextOf = (req: Request): BudgetContext => ({
    ...deps,
    workspaceId: currentWorkspace(req).id,
    authorId: currentUserId(req),
  });
  const tag = 'budgets';
  for (const scope of SCOPES) {
    const { path, params } = scope;
    const notFound = { 404: scope.notFound };
    api.add(
      {
        method: 'get',
        path,
        operationId: `get${scope.name}Budget`,
        summary: `Read ${scope.owner} budget and what its current UTC period spent`,
        tag,
        access: scope.access('viewer'),
        params,
        responses: { 200: STATUS },
        problems: notFound,
      },
      async (input, req, res) => {
        res.json(await scope.read(contextOf(req), input.params.id));
      },
    );
    api.add(
      {
        method: 'put',
        path,
        operationId: `set${scope.name}Budget`,
        summary: `Set ${scope.owner} budget (admin or owner); ${scope.republished}`,
        tag,
        access: scope.access('admin'),
        params,
        body: ZBudget,
        responses: { 200: STATUS },
        problems: { ...notFound, ...ADMIN_ONLY },
      },
      async (input, req, res) => {
        const ctx = contextOf(req);
        await scope.write(ctx, input.params.id, input.body);
        res.json(await scope.read(ctx, input.params.id));
      },
    );
    api.add(
      {
        method: 'delete',
        path,
        operationId: `delete${scope.name}Budget`,
        summary: `Remove ${scope.owner} budget (admin or owner); ${scope.republished}`,
        tag,
        access: scope.access('admin'),
        params,
        responses: { 204: { description: 'Removed (also when there was none)' } },
        problems: { ...notFound, ...ADMIN_ONLY },
      },
      async (input, req, res) => {
        await scope.write(contextOf(req), input.params.id, null);
        res.status(204).end();
      },
    );
  }
}
