// /agents/{id}/online-scoring: which share of an agent's runs its scorers grade once they end. Every
// member reads it (viewers with judge keys masked); members, admins and owners write it, as they
// write the agent.
import { ZOnlineScoring, ZOnlineScoringUpdate, ZSecretsQuery } from '@agentplane/contracts';
import type { Db, SecretBox } from '@agentplane/db';
import type { EgressAllowList, Logger } from '@agentplane/server-kit';
import type { Request } from 'express';
import type { ApiRouter } from '../../http/api-router.js';
import { currentWorkspace } from '../../http/request-context.js';
import { ZIdParams } from '../../resources/resource-routes.js';
import { secretsViewOf } from '../../secrets/secrets-view.js';
import { getOnlineScoring, type OnlineScoringContext, putOnlineScoring } from './online-scoring-service.js';

export type OnlineScoringRouteDependencies = Omit<OnlineScoringContext, 'workspaceId'> & {
  db: Db;
  box: SecretBox;
  logger: Logger;
  egressAllow: EgressAllowList;
};

const TAG = 'evaluations';
const NO_AGENT = { 404: 'No agent with this id in the workspace' };

export function addOnlineScoringRoutes(api: ApiRouter, deps: OnlineScoringRouteDependencies): void {
  const contextOf = (req: Request): OnlineScoringContext => ({ ...deps, workspaceId: currentWorkspace(req).id });

  api.add(
    {
      method: 'get',
      path: '/agents/:id/online-scoring',
      operationId: 'getOnlineScoring',
      summary:
        "An agent's online scoring: the share of its ended runs graded, by which scorers, and how many wait or were dropped",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZSecretsQuery,
      responses: {
        200: { description: 'The settings (disabled defaults when never written)', schema: ZOnlineScoring },
      },
      problems: NO_AGENT,
    },
    async ({ params, query }, req, res) => {
      res.json(await getOnlineScoring(contextOf(req), params.id, secretsViewOf(req, query)));
    },
  );

  api.add(
    {
      method: 'put',
      path: '/agents/:id/online-scoring',
      operationId: 'putOnlineScoring',
      summary:
        "Replace an agent's online scoring (member or above). Runs that end from now on are sampled with it; runs already queued are graded with the scorers stored when they are graded",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZIdParams,
      query: ZSecretsQuery,
      body: ZOnlineScoringUpdate,
      responses: { 200: { description: 'The settings', schema: ZOnlineScoring } },
      problems: {
        ...NO_AGENT,
        403: 'You are a viewer of the workspace',
        422: 'Body failed validation, or a scorer cannot be used as written (a JSON Schema that does not compile, a judge at an address the egress policy refuses, a mask that stands for no stored key); `errors` names it',
      },
    },
    async ({ params, query, body }, req, res) => {
      res.json(await putOnlineScoring(contextOf(req), params.id, body, secretsViewOf(req, query)));
    },
  );
}
