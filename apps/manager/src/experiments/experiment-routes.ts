// /agents/{id}/experiments: a dataset version run against some of an agent's versions, then its
// results, aggregates, a pairwise comparison and an export. Viewers read; members, admins and owners
// launch, cancel and delete (a launch runs the agent, as a member may).
import {
  ZComparisonQuery,
  ZExperiment,
  ZExperimentComparison,
  ZExperimentCreate,
  ZExperimentDetail,
  ZExperimentExport,
  ZExperimentExportQuery,
  ZExperimentListQuery,
  ZExperimentParams,
  ZExperimentResult,
  ZExperimentResultsQuery,
} from '@agentplane/contracts';
import type { AgentKeyring, Db, SecretBox } from '@agentplane/db';
import type { EgressAllowList, Logger } from '@agentplane/server-kit';
import type { Request } from 'express';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentUserId, currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import { compareVersions } from './experiment-comparison.js';
import { sendExport } from './experiment-export.js';
import { listResults } from './experiment-reads.js';
import {
  cancelExperiment,
  createExperiment,
  deleteExperiment,
  type ExperimentContext,
  getExperimentDetail,
  listExperiments,
} from './experiment-service.js';
import type { ExperimentSettings } from './experiment-settings.js';

export type ExperimentRouteDependencies = {
  db: Db;
  box: SecretBox;
  agentKeys: AgentKeyring;
  egressAllow: EgressAllowList;
  logger: Logger;
  settings: ExperimentSettings;
  /** Asks this replica's worker to look at once (a launch or a cancel), rather than at its next poll. */
  wakeExperiments?: () => void;
};

const tag = 'experiments';
const read = { kind: 'workspace', minRole: 'viewer' } as const;
const write = { kind: 'workspace', minRole: 'member' } as const;
const VIEWER = { 403: 'Viewers may only read' };
const NO_AGENT = { 404: 'No agent with this id in the workspace' };
const NO_EXPERIMENT = { 404: 'No such agent in the workspace, or no such experiment of it' };

export function addExperimentRoutes(api: ApiRouter, deps: ExperimentRouteDependencies): void {
  const contextOf = (req: Request): ExperimentContext => ({
    ...deps,
    workspaceId: currentWorkspace(req).id,
    userId: currentUserId(req),
  });
  const wake = () => deps.wakeExperiments?.();

  api.add(
    {
      method: 'post',
      path: '/agents/:id/experiments',
      operationId: 'createExperiment',
      summary: 'Launch an experiment: every item of a dataset version runs on each of the agent versions named',
      tag,
      access: write,
      params: ZIdParams,
      body: ZExperimentCreate,
      responses: { 201: { description: 'The experiment, running', schema: ZExperiment } },
      problems: {
        ...VIEWER,
        ...NO_AGENT,
        422: 'A version the agent never had or no longer keeps, a dataset or dataset version not in the workspace, a scorer that cannot be compiled, more runs than EXPERIMENT_MAX_RUNS, a concurrency above EXPERIMENT_MAX_CONCURRENCY, or as many running experiments as MAX_ACTIVE_EXPERIMENTS_PER_WORKSPACE',
      },
    },
    async ({ params, body }, req, res) => {
      res.status(201).json(await createExperiment(contextOf(req), params.id, body));
      wake();
    },
  );
  api.add(
    {
      method: 'get',
      path: '/agents/:id/experiments',
      operationId: 'listExperiments',
      summary: "List an agent's experiments, newest first, with their progress",
      tag,
      access: read,
      params: ZIdParams,
      query: ZExperimentListQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZExperiment), headers: ZTotalCountHeader } },
      problems: NO_AGENT,
    },
    async ({ params, query }, req, res) => {
      sendPage(res, await listExperiments(contextOf(req), params.id, query));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/agents/:id/experiments/:experimentId',
      operationId: 'getExperiment',
      summary: 'Read an experiment: its status, progress and the aggregates per version and scorer',
      tag,
      access: read,
      params: ZExperimentParams,
      responses: { 200: { description: 'The experiment', schema: ZExperimentDetail } },
      problems: NO_EXPERIMENT,
    },
    async ({ params }, req, res) => {
      res.json(await getExperimentDetail(contextOf(req), params));
    },
  );
  api.add(
    {
      method: 'post',
      path: '/agents/:id/experiments/:experimentId/cancel',
      operationId: 'cancelExperiment',
      summary: 'Cancel an experiment: runs not started are dropped, running ones are asked to stop',
      tag,
      access: write,
      params: ZExperimentParams,
      responses: {
        200: { description: 'The experiment, cancelling (or as it was, if already finished)', schema: ZExperiment },
      },
      problems: { ...VIEWER, ...NO_EXPERIMENT },
    },
    async ({ params }, req, res) => {
      res.json(await cancelExperiment(contextOf(req), params));
      wake();
    },
  );
  api.add(
    {
      method: 'delete',
      path: '/agents/:id/experiments/:experimentId',
      operationId: 'deleteExperiment',
      summary: 'Delete a finished experiment with its results (its agent runs stay in the run history)',
      tag,
      access: write,
      params: ZExperimentParams,
      responses: { 204: { description: 'Deleted' } },
      problems: { ...VIEWER, ...NO_EXPERIMENT, 409: 'The experiment is still running or cancelling: cancel it first' },
    },
    async ({ params }, req, res) => {
      await deleteExperiment(contextOf(req), params);
      res.status(204).end();
    },
  );
  api.add(
    {
      method: 'get',
      path: '/agents/:id/experiments/:experimentId/results',
      operationId: 'listExperimentResults',
      summary: "List an experiment's results in the dataset's order (item, then version, then repeat)",
      tag,
      access: read,
      params: ZExperimentParams,
      query: ZExperimentResultsQuery,
      responses: {
        200: { description: 'A page', schema: z.array(ZExperimentResult), headers: ZTotalCountHeader },
      },
      problems: NO_EXPERIMENT,
    },
    async ({ params, query }, req, res) => {
      sendPage(res, await listResults(contextOf(req), params, query));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/agents/:id/experiments/:experimentId/comparison',
      operationId: 'compareExperimentVersions',
      summary: 'Compare two versions of an experiment item by item: which items improved, regressed or changed reply',
      tag,
      access: read,
      params: ZExperimentParams,
      query: ZComparisonQuery,
      responses: { 200: { description: 'The comparison, its items paged', schema: ZExperimentComparison } },
      problems: { ...NO_EXPERIMENT, 422: 'base or candidate is not a version of the experiment, or they are the same' },
    },
    async ({ params, query }, req, res) => {
      res.json(await compareVersions(contextOf(req), params, query));
    },
  );
  api.add(
    {
      method: 'get',
      path: '/agents/:id/experiments/:experimentId/export',
      operationId: 'exportExperimentResults',
      summary: "Export an experiment's results as JSON Lines or CSV (one column per scorer)",
      tag,
      access: read,
      params: ZExperimentParams,
      query: ZExperimentExportQuery,
      responses: {
        200: {
          description: 'JSON Lines (application/x-ndjson) or CSV (text/csv)',
          contentType: 'application/x-ndjson',
          schema: ZExperimentExport,
        },
      },
      problems: NO_EXPERIMENT,
    },
    async ({ params, query }, req, res) => {
      await sendExport(contextOf(req), params, query.format, res);
    },
  );
}
