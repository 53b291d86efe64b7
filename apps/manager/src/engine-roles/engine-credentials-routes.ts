import { ZEngineCredentials } from '@agentplane/contracts';
import type { ApiRouter } from '../http/api-router.js';
import { ZIdParams } from '../resources/resource-routes.js';
import { type EngineCredentialsDependencies, issueEngineCredentials } from './issue-engine-credentials.js';

export function addEngineCredentialsRoute(api: ApiRouter, deps: EngineCredentialsDependencies): void {
  api.add(
    {
      method: 'post',
      path: '/agents/:id/engine-credentials',
      operationId: 'createEngineCredentials',
      summary:
        "Rotate the password of a dedicated agent's engine database role and return, once, what its engine needs (AGENT_ID, DATABASE_URL, AGENT_KEY); platform operators only",
      tag: 'agents',
      // Whoever holds these reads the agent's secrets and holds database connections: never a tenant.
      access: { kind: 'platform-operator' },
      params: ZIdParams,
      responses: {
        201: {
          description: "The engine's credentials; the previous password no longer works",
          schema: ZEngineCredentials,
        },
      },
      problems: {
        403: 'Not a platform operator (no workspace role is enough)',
        404: 'No agent with this id',
        409: "The agent is on a pool (its engines are the pool's), or the engines with credentials would pass ENGINE_DB_CONNECTIONS_TOTAL",
      },
    },
    async ({ params }, _req, res) => {
      const credentials = await issueEngineCredentials(deps, { agentId: params.id });
      res.status(201).set('Cache-Control', 'no-store').json(credentials);
    },
  );
}
