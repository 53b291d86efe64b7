import { type TEnginePools, ZEnginePools, ZPoolCredentials } from '@agentplane/contracts';
import { POOL_NAME } from '@agentplane/db';
import { z } from 'zod';
import { type EngineCredentialsDependencies, issuePoolCredentials } from '../engine-roles/issue-engine-credentials.js';
import type { ApiRouter } from '../http/api-router.js';

const TAG = 'engine-pools';
const ZPoolParams = z.strictObject({ name: z.string().regex(POOL_NAME, 'Must be a pool name') });

export function addEnginePoolRoutes(api: ApiRouter, deps: EngineCredentialsDependencies): void {
  const { urls, defaultDeployment } = deps.enginePools;
  const listed: TEnginePools = {
    pools: [...urls].map(([name, url]) => ({ name, public_url: url })),
    default_deployment: defaultDeployment,
  };
  api.add(
    {
      method: 'get',
      path: '/engine-pools/',
      operationId: 'listEnginePools',
      summary: "The operator's engine pools, where agents may be placed, and its default placement",
      tag: TAG,
      access: { kind: 'session' },
      responses: { 200: { description: 'The pools (ENGINE_POOLS) and DEFAULT_ENGINE_POOL', schema: ZEnginePools } },
    },
    (_input, _req, res) => {
      res.json(listed);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/engine-pools/:name/credentials',
      operationId: 'createPoolCredentials',
      summary:
        "Rotate the password of a pool's database role and return, once, what its engines need (ENGINE_POOL, DATABASE_URL, ENGINE_POOL_KEY); platform operators only",
      tag: TAG,
      access: { kind: 'platform-operator' },
      params: ZPoolParams,
      responses: {
        201: { description: "The pool's credentials; the previous password no longer works", schema: ZPoolCredentials },
      },
      problems: {
        403: 'Not a platform operator (no workspace role is enough)',
        404: 'No pool of this name in ENGINE_POOLS',
        409: 'The engines with credentials would pass ENGINE_DB_CONNECTIONS_TOTAL',
      },
    },
    async ({ params }, _req, res) => {
      const credentials = await issuePoolCredentials(deps, { pool: params.name });
      res.status(201).set('Cache-Control', 'no-store').json(credentials);
    },
  );
}
