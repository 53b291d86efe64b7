// GET /agents/{id}/versions[/{n}[/diff]] and POST /agents/{id}/rollback. Reading follows the agent's
// own read (any member, viewers included), rolling back its write (member and above).
import {
  ZAgent,
  ZAgentRollback,
  ZAgentVersion,
  ZAgentVersionDetail,
  ZAgentVersionDiff,
  ZAgentVersionDiffQuery,
  ZAgentVersionListQuery,
  ZAgentVersionParams,
  ZSecretsQuery,
} from '@agentplane/contracts';
import type { Request } from 'express';
import { z } from 'zod';
import { type AgentRouteDependencies, agentContextOf } from '../agents/agent-routes.js';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import {
  diffAgentVersions,
  getAgentVersion,
  listAgentVersions,
  rollbackAgent,
  type VersionContext,
} from './version-service.js';

const TAG = 'agents';
const NOT_FOUND = 'No agent with this id in the workspace, or no such version (never published, or pruned)';

export function addVersionRoutes(api: ApiRouter, deps: AgentRouteDependencies): void {
  const readContext = (req: Request): VersionContext => ({
    db: deps.db,
    box: deps.box,
    workspaceId: currentWorkspace(req).id,
  });

  api.add(
    {
      method: 'get',
      path: '/agents/:id/versions',
      operationId: 'listAgentVersions',
      summary: "List an agent's versions, newest first: number, cause, author, message and time",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZAgentVersionListQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZAgentVersion), headers: ZTotalCountHeader } },
      problems: { 404: 'No agent with this id in the workspace' },
    },
    async ({ params, query }, req, res) => {
      sendPage(res, await listAgentVersions(readContext(req), params.id, query));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:id/versions/:version',
      operationId: 'getAgentVersion',
      summary: "Get one of an agent's versions: its spec and the engine_config published as it, secrets masked",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZAgentVersionParams,
      responses: { 200: { description: 'The version', schema: ZAgentVersionDetail } },
      problems: { 404: NOT_FOUND },
    },
    async ({ params }, req, res) => {
      res.json(await getAgentVersion(readContext(req), params.id, params.version));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:id/versions/:version/diff',
      operationId: 'diffAgentVersions',
      summary:
        'What changed from version `against` to this one, as an RFC 6902 JSON Patch over {spec, engine_config}; secrets masked',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZAgentVersionParams,
      query: ZAgentVersionDiffQuery,
      responses: { 200: { description: 'The patch', schema: ZAgentVersionDiff } },
      problems: { 404: NOT_FOUND },
    },
    async ({ params, query }, req, res) => {
      res.json(await diffAgentVersions(readContext(req), params.id, params.version, query.against));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/agents/:id/rollback',
      operationId: 'rollbackAgent',
      summary:
        "Publish a version's spec again as a new version (cause rollback), in one transaction; the resources' own configs are not rolled back",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZIdParams,
      query: ZSecretsQuery,
      body: ZAgentRollback,
      responses: { 200: { description: 'The agent as published by the rollback', schema: ZAgent } },
      problems: {
        404: NOT_FOUND,
        422: 'Body failed validation, or the version cannot be published now: it references a resource deleted since, or the operator no longer allows what it configures (the errors say which)',
      },
    },
    async ({ params, query, body }, req, res) => {
      res.json(await rollbackAgent(agentContextOf(deps, req, query), params.id, body));
    },
  );
}
