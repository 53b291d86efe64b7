// /webhooks: a workspace's outgoing webhook endpoints, their delivery logs, replays and test events.
// Admins and owners only, reads included: an endpoint's URL and its log's payloads are as much the
// workspace's integration settings as its secret.
import {
  WEBHOOK_MAX_PENDING_DELIVERIES,
  ZPaginationQuery,
  ZWebhookDelivery,
  ZWebhookDeliveryListQuery,
  ZWebhookDeliveryParams,
  ZWebhookEndpoint,
  ZWebhookEndpointInput,
  ZWebhookEndpointWithSecret,
  ZWebhookSecretRotation,
} from '@agentplane/contracts';
import type { Db, SecretBox } from '@agentplane/db';
import type { EgressAllowList } from '@agentplane/server-kit';
import type { Request } from 'express';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import { listDeliveries, replayDelivery, sendTestEvent } from './webhook-delivery-service.js';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  replaceEndpoint,
  rotateEndpointSecret,
  WEBHOOK_NOT_FOUND,
  type WebhookContext,
} from './webhook-endpoint-service.js';

export type WebhookRouteDependencies = {
  db: Db;
  box: SecretBox;
  egressAllow: EgressAllowList;
  maxWebhooksPerWorkspace: number;
  /** Tells this replica's delivery worker that something is due now; polling delivers it otherwise. */
  wakeWebhooks?: () => void;
};

const tag = 'webhooks';
const access = { kind: 'workspace', minRole: 'admin' } as const;
const ADMIN_ONLY = { 403: 'You are not an admin or owner of the workspace' };
const NOT_FOUND = { 404: WEBHOOK_NOT_FOUND, ...ADMIN_ONLY };
const FULL = { 409: `The endpoint holds ${WEBHOOK_MAX_PENDING_DELIVERIES} undelivered deliveries, the most it may` };

export function addWebhookRoutes(api: ApiRouter, deps: WebhookRouteDependencies): void {
  const contextOf = (req: Request): WebhookContext => ({
    db: deps.db,
    box: deps.box,
    egressAllow: deps.egressAllow,
    workspaceId: currentWorkspace(req).id,
    maxEndpoints: deps.maxWebhooksPerWorkspace,
  });
  const wake = () => deps.wakeWebhooks?.();

  api.add(
    {
      method: 'get',
      path: '/webhooks',
      operationId: 'listWebhookEndpoints',
      summary: "List the workspace's webhook endpoints (admin or owner), secrets masked",
      tag,
      access,
      query: ZPaginationQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZWebhookEndpoint), headers: ZTotalCountHeader } },
      problems: ADMIN_ONLY,
    },
    async ({ query }, req, res) => {
      sendPage(res, await listEndpoints(contextOf(req), query));
    },
  );
  api.add(
    {
      method: 'post',
      path: '/webhooks',
      operationId: 'createWebhookEndpoint',
      summary: 'Subscribe a URL to events (admin or owner); the answer shows its signing secret, this once',
      tag,
      access,
      body: ZWebhookEndpointInput,
      responses: { 201: { description: 'Created, with its secret', schema: ZWebhookEndpointWithSecret } },
      problems: { ...ADMIN_ONLY, 409: 'The workspace has as many endpoints as the operator allows' },
    },
    async ({ body }, req, res) => {
      res.status(201).json(await createEndpoint(contextOf(req), body));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/webhooks/:id',
      operationId: 'getWebhookEndpoint',
      summary: 'Read a webhook endpoint (admin or owner), its secret masked',
      tag,
      access,
      params: ZIdParams,
      responses: { 200: { description: 'The endpoint', schema: ZWebhookEndpoint } },
      problems: NOT_FOUND,
    },
    async ({ params }, req, res) => {
      res.json(await getEndpoint(contextOf(req), params.id));
    },
  );
  api.add(
    {
      method: 'patch',
      path: '/webhooks/:id',
      operationId: 'replaceWebhookEndpoint',
      summary: 'Replace a webhook endpoint’s URL, events and settings (admin or owner); its secret stays',
      tag,
      access,
      params: ZIdParams,
      body: ZWebhookEndpointInput,
      responses: { 200: { description: 'The endpoint', schema: ZWebhookEndpoint } },
      problems: NOT_FOUND,
    },
    async ({ params, body }, req, res) => {
      res.json(await replaceEndpoint(contextOf(req), params.id, body));
    },
  );
  api.add(
    {
      method: 'delete',
      path: '/webhooks/:id',
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint and its delivery log (admin or owner)',
      tag,
      access,
      params: ZIdParams,
      responses: { 204: { description: 'Deleted' } },
      problems: NOT_FOUND,
    },
    async ({ params }, req, res) => {
      await deleteEndpoint(contextOf(req), params.id);
      res.status(204).end();
    },
  );
  api.add(
    {
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Give a webhook endpoint a new signing secret, shown this once (admin or owner)',
      tag,
      access,
      params: ZIdParams,
      body: ZWebhookSecretRotation,
      responses: { 200: { description: 'The endpoint, with its new secret', schema: ZWebhookEndpointWithSecret } },
      problems: NOT_FOUND,
    },
    async ({ params, body }, req, res) => {
      res.json(await rotateEndpointSecret(contextOf(req), params.id, body.previous_valid_seconds));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: "List a webhook endpoint's deliveries, newest first, with every attempt (admin or owner)",
      tag,
      access,
      params: ZIdParams,
      query: ZWebhookDeliveryListQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZWebhookDelivery), headers: ZTotalCountHeader } },
      problems: NOT_FOUND,
    },
    async ({ params, query }, req, res) => {
      sendPage(res, await listDeliveries(contextOf(req), params.id, query));
    },
  );
  api.add(
    {
      method: 'post',
      path: '/webhooks/:id/deliveries/:deliveryId/replay',
      operationId: 'replayWebhookDelivery',
      summary: 'Send a delivery’s event again, with the same webhook-id (admin or owner)',
      tag,
      access,
      params: ZWebhookDeliveryParams,
      responses: { 201: { description: 'The new delivery', schema: ZWebhookDelivery } },
      problems: { ...NOT_FOUND, 404: 'No such endpoint, or no such delivery of it', ...FULL },
    },
    async ({ params }, req, res) => {
      res.status(201).json(await replayDelivery(contextOf(req), params.id, params.deliveryId));
      wake();
    },
  );
  api.add(
    {
      method: 'post',
      path: '/webhooks/:id/test',
      operationId: 'sendWebhookTestEvent',
      summary: 'Queue a webhook.test event for this endpoint alone (admin or owner)',
      tag,
      access,
      params: ZIdParams,
      responses: { 201: { description: 'The new delivery', schema: ZWebhookDelivery } },
      problems: { ...NOT_FOUND, ...FULL },
    },
    async ({ params }, req, res) => {
      res.status(201).json(await sendTestEvent(contextOf(req), params.id));
      wake();
    },
  );
}
