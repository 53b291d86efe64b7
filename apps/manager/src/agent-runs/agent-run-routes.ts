import { ZAgentRun, ZAgentRunListQuery } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import { listAgentRuns } from './agent-run-service.js';

export function addAgentRunRoutes(api: ApiRouter, deps: { db: Db }): void {
  api.add(
    {
      method: 'get',
      path: '/agents/:id/runs',
      operationId: 'listAgentRuns',
      summary:
        "List an agent's runs, newest first: status, timings, error and usage, never conversation content; the caller's issuer and subject for admins and owners only",
      tag: 'agents',
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZAgentRunListQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZAgentRun), headers: ZTotalCountHeader } },
      problems: { 404: 'No agent with this id in the workspace' },
    },
    async ({ params, query }, req, res) => {
      const { id: workspaceId, role } = currentWorkspace(req);
      sendPage(res, await listAgentRuns({ db: deps.db, workspaceId, role }, params.id, query));
    },
  );
}
