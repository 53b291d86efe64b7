import {
  ENGINE_CONFIG_MAX_BYTES,
  type TSecretsQuery,
  ZAgent,
  ZAgentCard,
  ZAgentCreate,
  ZAgentListItem,
  ZAgentListQuery,
  ZAgentUpdate,
  ZPublishedEngineConfig,
  ZSecretsQuery,
} from '@agentplane/contracts';
import type { Request } from 'express';
import { z } from 'zod';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentUserId, currentWorkspace } from '../http/request-context.js';
import { requestOrigin } from '../http/security.js';
import { type ResourceRouteDependencies, ZIdParams } from '../resources/resource-routes.js';
import { secretsViewOf } from '../secrets/secrets-view.js';
import { getAgentCard } from './agent-card.js';
import {
  type AgentContext,
  createAgent,
  deleteAgent,
  getAgent,
  getEngineConfig,
  listAgents,
  updateAgent,
} from './agent-service.js';

const TAG = 'agents';
const NOT_FOUND = { 404: 'No agent with this id in the workspace' };
const BAD_REFERENCE = {
  422: `Body failed validation, references a resource not in the workspace, names (not being an LLM agent, which alone has a model) a guardrail with a model_judge rule (path resources.guardrail_ids[i], naming the rule), names a key variable the operator's MODEL_API_KEY_ENVS does not list, names a model address agents may not reach, or would make the engine_config larger than ${ENGINE_CONFIG_MAX_BYTES / 1024} KiB (path engine_config)`,
};

export type AgentRouteDependencies = ResourceRouteDependencies & {
  /** PUBLIC_URL's and ISSUER_URL's origins: the manager's own, besides the one each request reached. */
  managerOrigins: readonly string[];
  /** MAX_AGENTS_PER_WORKSPACE: creates past it are refused. */
  maxAgentsPerWorkspace: number;
  /** ENGINE_POOLS and DEFAULT_ENGINE_POOL: where agents may be and are placed. */
  enginePools: EnginePoolSettings;
  /** ISSUER_URL: the issuer of the tokens the manager mints, which every engine accepts. */
  managerIssuer: string;
};

/** The context of an agent request: its workspace, its author, how it shows secrets. */
export function agentContextOf(deps: AgentRouteDependencies, req: Request, query?: TSecretsQuery): AgentContext {
  return {
    ...deps,
    workspaceId: currentWorkspace(req).id,
    authorId: currentUserId(req),
    secrets: secretsViewOf(req, query),
    managerOrigins: [...deps.managerOrigins, requestOrigin(req)],
  };
}

export function addAgentRoutes(api: ApiRouter, deps: AgentRouteDependencies): void {
  const contextOf = (req: Request, query?: TSecretsQuery) => agentContextOf(deps, req, query);

  api.add(
    {
      method: 'post',
      path: '/agents/',
      operationId: 'createAgent',
      summary: 'Create an agent and publish its engine_config (version 1)',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      query: ZSecretsQuery,
      body: ZAgentCreate,
      responses: { 201: { description: 'The new agent with its engine_config', schema: ZAgent } },
      problems: {
        ...BAD_REFERENCE,
        409: 'The workspace has as many agents as the operator allows (MAX_AGENTS_PER_WORKSPACE, type urn:agentplane:problem:agents-per-workspace)',
      },
    },
    async ({ query, body }, req, res) => {
      res.status(201).json(await createAgent(contextOf(req, query), body));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/',
      operationId: 'listAgents',
      summary: "List the workspace's agents, oldest first; engine configs only with ?include=engine_config",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      query: ZAgentListQuery.extend(ZSecretsQuery.shape),
      responses: { 200: { description: 'A page', schema: z.array(ZAgentListItem), headers: ZTotalCountHeader } },
    },
    async ({ query }, req, res) => {
      sendPage(res, await listAgents(contextOf(req, query), query));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:id',
      operationId: 'getAgent',
      summary: 'Get an agent with its current engine_config',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZSecretsQuery,
      responses: { 200: { description: 'The agent', schema: ZAgent } },
      problems: NOT_FOUND,
    },
    async ({ params, query }, req, res) => {
      res.json(await getAgent(contextOf(req, query), params.id));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:id/engine-config',
      operationId: 'getAgentEngineConfig',
      summary: "Get an agent's published engine_config with its version",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZSecretsQuery,
      responses: { 200: { description: 'The engine_config its engine runs', schema: ZPublishedEngineConfig } },
      problems: NOT_FOUND,
    },
    async ({ params, query }, req, res) => {
      res.json(await getEngineConfig(contextOf(req, query), params.id));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:id/card',
      operationId: 'getAgentCard',
      summary:
        "The agent's A2A agent card (what its engine serves at /.well-known/agent-card.json), built without calling the engine",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      responses: { 200: { description: 'The card', schema: ZAgentCard } },
      problems: {
        ...NOT_FOUND,
        409: 'The agent has no engine_url (a dedicated agent without one, or a pool the operator no longer serves), type urn:agentplane:problem:no-engine-url',
      },
    },
    async ({ params }, req, res) => {
      res.json(await getAgentCard(contextOf(req), deps.managerIssuer, params.id));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/agents/:id',
      operationId: 'updateAgent',
      summary: 'Replace an agent; its engine_config is republished in the same transaction',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZIdParams,
      query: ZSecretsQuery,
      body: ZAgentUpdate,
      responses: { 200: { description: 'The updated agent', schema: ZAgent } },
      problems: { ...NOT_FOUND, ...BAD_REFERENCE },
    },
    async ({ params, query, body }, req, res) => {
      res.json(await updateAgent(contextOf(req, query), params.id, body));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/agents/:id',
      operationId: 'deleteAgent',
      summary: 'Delete an agent; its engine stops serving runs',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZIdParams,
      responses: { 204: { description: 'Deleted' } },
      problems: NOT_FOUND,
    },
    async ({ params }, req, res) => {
      await deleteAgent(contextOf(req), params.id);
      res.status(204).end();
    },
  );
}
