import {
  ENGINE_CONFIG_MAX_BYTES,
  type TSecretsQuery,
  ZPaginationQuery,
  ZSecretsQuery,
  ZUuid,
} from '@agentplane/contracts';
import type { AgentKeyring, Db, EngineRoleSettings, SecretBox } from '@agentplane/db';
import type { EgressAllowList } from '@agentplane/server-kit';
import type { Request } from 'express';
import { z } from 'zod';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentUserId, currentWorkspace } from '../http/request-context.js';
import type { PublishMetrics } from '../metrics/manager-metrics.js';
import type { OperatorPolicy } from '../operator-policy/operator-policy.js';
import { secretsViewOf } from '../secrets/secrets-view.js';
import type { ModelPrices } from '../usage/model-prices.js';
import type { ResourceKind } from './resource-kinds.js';
import {
  createResource,
  deleteResource,
  getResource,
  listResources,
  type ResourceContext,
  updateResource,
} from './resource-service.js';

export const ZIdParams = z.strictObject({ id: ZUuid });
export const ZListQuery = ZPaginationQuery.extend(ZSecretsQuery.shape);

/**
 * box: the platform key, for resources at rest. agentKeys: seals each agent's engine config. prices: the
 * price table, whose price of an agent's model is published for its budgets.
 */
export type ResourceRouteDependencies = {
  db: Db;
  box: SecretBox;
  policy: OperatorPolicy;
  egressAllow: EgressAllowList;
  agentKeys: AgentKeyring;
  prices: ModelPrices;
  engineRoles: EngineRoleSettings;
  /** The operator's pools: where a pooled agent that others call is served. */
  enginePools: EnginePoolSettings;
  /** Set when the manager serves metrics. */
  publishMetrics?: PublishMetrics | undefined;
  /** AGENT_VERSION_RETENTION: how many of an agent's newest versions are kept. */
  versionRetention: number;
};

/** The spec's common pattern (POST /, GET /, GET /{id}, PATCH /{id}, DELETE /{id}) for one resource kind. */
export function addResourceRoutes<T>(api: ApiRouter, deps: ResourceRouteDependencies, kind: ResourceKind<T>): void {
  const contextOf = (req: Request, query?: TSecretsQuery): ResourceContext => ({
    ...deps,
    workspaceId: currentWorkspace(req).id,
    authorId: currentUserId(req),
    secrets: secretsViewOf(req, query),
  });
  const bodyOf = (body: Record<string, unknown> & { name: string }) => ({
    name: body.name,
    typed: body[kind.key] as T,
  });
  const collection = `/${kind.segment}/`;
  const item = `/${kind.segment}/:id`;
  const tag = kind.segment;
  const notFound = { 404: `No ${kind.label} with this id in the workspace` };
  const refused: Record<number, string> = kind.checkAllowed
    ? {
        422: "Body failed validation, or configures what the operator's settings do not allow (the detail names the setting)",
      }
    : {};
  const counted = (description: string) =>
    kind.agentCountNote === undefined ? description : `${description}. ${kind.agentCountNote}`;
  const refusedUpdate = {
    422: `${refused[422] ?? 'Body failed validation'}, or would make the engine_config of an agent using it larger than ${ENGINE_CONFIG_MAX_BYTES / 1024} KiB (path engine_config)`,
  };

  api.add(
    {
      method: 'post',
      path: collection,
      operationId: `create${kind.operationName}`,
      summary: `Create a ${kind.label}`,
      tag,
      access: { kind: 'workspace', minRole: 'member' },
      query: ZSecretsQuery,
      body: kind.createBody,
      responses: { 201: { description: `The new ${kind.label}, defaults filled in`, schema: kind.response } },
      problems: refused,
    },
    async ({ query, body }, req, res) => {
      res.status(201).json(await createResource(kind, contextOf(req, query), bodyOf(body)));
    },
  );

  api.add(
    {
      method: 'get',
      path: collection,
      operationId: `list${kind.operationName}s`,
      summary: `List the workspace's ${kind.label}s, oldest first`,
      tag,
      access: { kind: 'workspace', minRole: 'viewer' },
      query: ZListQuery,
      responses: {
        200: { description: counted('A page'), schema: z.array(kind.response), headers: ZTotalCountHeader },
      },
    },
    async ({ query }, req, res) => {
      sendPage(res, await listResources(kind, contextOf(req, query), query));
    },
  );

  api.add(
    {
      method: 'get',
      path: item,
      operationId: `get${kind.operationName}`,
      summary: `Get a ${kind.label}`,
      tag,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZSecretsQuery,
      responses: { 200: { description: counted(`The ${kind.label}`), schema: kind.response } },
      problems: notFound,
    },
    async ({ params, query }, req, res) => {
      res.json(await getResource(kind, contextOf(req, query), params.id));
    },
  );

  api.add(
    {
      method: 'patch',
      path: item,
      operationId: `update${kind.operationName}`,
      summary: `Replace a ${kind.label}; every agent using it gets a new engine_config`,
      tag,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZIdParams,
      query: ZSecretsQuery,
      body: kind.updateBody,
      responses: { 200: { description: `The updated ${kind.label}`, schema: kind.response } },
      problems: { ...notFound, ...refusedUpdate },
    },
    async ({ params, query, body }, req, res) => {
      res.json(await updateResource(kind, contextOf(req, query), params.id, bodyOf(body)));
    },
  );

  api.add(
    {
      method: 'delete',
      path: item,
      operationId: `delete${kind.operationName}`,
      summary: `Delete a ${kind.label} no agent uses`,
      tag,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZIdParams,
      responses: { 204: { description: 'Deleted' } },
      problems: { ...notFound, 409: kind.inUseDescription ?? 'Agents still use it; the detail says how many' },
    },
    async ({ params }, req, res) => {
      await deleteResource(kind, contextOf(req), params.id);
      res.status(204).end();
    },
  );
}
