import { ZEngineCredentials } from '@agentplane/contracts';
import type { ApiRouter } from '../http/api-router.js';
import { currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import { type EngineCredentialsDependencies, issueEngineCredentials } from './issue-engine-credentials.js';

export function addEngineCredentialsRoute(api: ApiRouter, deps: EngineCredentialsDependencies): void {
  api.add(
    {
      method: 'post',
      path: '/agents/:id/engine-credentials',
      operationId: 'createEngineCredentials',
      summary:
        "Rotate the password of the agent's engine database role and return, once, what its engine needs (AGENT_ID, DATABASE_URL, AGENT_KEY)",
      tag: 'agents',
      // Whoever holds these reads the agent's secrets: workspace admins and owners only.
      access: { kind: 'workspace', minRole: 'admin' },
      params: ZIdParams,
      responses: {
        201: {
          description: "The engine's credentials; the previous password no longer works",
          schema: ZEngineCredentials,
        },
      },
      problems: { 404: 'No agent with this id in the workspace' },
    },
    async ({ params }, req, res) => {
      const credentials = await issueEngineCredentials(deps, {
        agentId: params.id,
        workspaceId: currentWorkspace(req).id,
      });
      res.status(201).set('Cache-Control', 'no-store').json(credentials);
    },
  );
}
