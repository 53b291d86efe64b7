// GET /agents/{id}/usage and GET /usage: usage and cost reports for every member of the workspace.
import {
  type TAgentUsage,
  type TAgentUsageQuery,
  type TUsageQuery,
  type TWorkspaceUsage,
  ZAgentUsage,
  ZAgentUsageQuery,
  ZUsageQuery,
  ZWorkspaceUsage,
} from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { ApiRouter } from '../http/api-router.js';
import { currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import type { ModelPrices } from './model-prices.js';
import { readScoreFigures, type ScoreFigures } from './score-figures.js';
import { readUsageFigures, type UsageFigures, type UsageScope } from './usage-figures.js';
import { resolveUsageRange, type UsageRange } from './usage-range.js';

export type UsageDeps = { db: Db; modelPrices: ModelPrices; now: () => number };

const RANGE_PROBLEM = 'A malformed query, `from` not before `to`, or a range longer than the bucket allows';

type Report = Omit<UsageFigures, 'buckets'> &
  Pick<TWorkspaceUsage, 'from' | 'to' | 'bucket' | 'buckets'> & { range: UsageRange };

/** The figures per version, newest first, when the query asks for them. */
function versionsOf(
  figures: UsageFigures['versions'],
  scores: ScoreFigures['versions'],
  query: TAgentUsageQuery,
): Pick<TAgentUsage, 'versions'> {
  if (query.group_by !== 'version') return {};
  return {
    versions: figures.map(({ agentId, agentVersion, ...rest }) => ({
      agent_version: agentVersion,
      ...rest,
      scores: scores.get(agentVersion) ?? [],
    })),
  };
}

async function report(deps: UsageDeps, scope: UsageScope, query: TUsageQuery): Promise<Report> {
  const range = resolveUsageRange(query, new Date(deps.now()));
  const figures = await readUsageFigures(deps.db, deps.modelPrices, scope, range);
  return {
    ...figures,
    range,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    bucket: range.bucket,
    buckets: figures.buckets.map(({ start, ...bucket }) => ({ start: start.toISOString(), ...bucket })),
  };
}

export function addUsageRoutes(api: ApiRouter, deps: UsageDeps): void {
  api.add(
    {
      method: 'get',
      path: '/agents/:id/usage',
      operationId: 'getAgentUsage',
      summary: "An agent's runs, failures, durations, tokens, cost and online scores per hour or day (UTC)",
      tag: 'agents',
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZAgentUsageQuery,
      responses: { 200: { description: 'The report', schema: ZAgentUsage } },
      problems: { 400: RANGE_PROBLEM, 404: 'No agent with this id in the workspace' },
    },
    async ({ params, query }, req, res) => {
      const { id: workspaceId } = currentWorkspace(req);
      const agent = await deps.db.agent.findFirst({ where: { id: params.id, workspaceId }, select: { id: true } });
      if (!agent) throw new AppError('not_found', 'No such agent.');
      const { totals, buckets, versions, from, to, bucket, range } = await report(
        deps,
        { workspaceId, agentId: agent.id },
        query,
      );
      const scores = await readScoreFigures(deps.db, agent.id, range);
      const body: TAgentUsage = {
        from,
        to,
        bucket,
        totals,
        scores: scores.totals,
        buckets: buckets.map((figures) => ({
          ...figures,
          scores: scores.buckets.get(Date.parse(figures.start)) ?? [],
        })),
        ...versionsOf(versions, scores.versions, query),
      };
      res.json(body);
    },
  );
  api.add(
    {
      method: 'get',
      path: '/usage',
      operationId: 'getWorkspaceUsage',
      summary:
        "The workspace's runs, failures, durations, tokens and cost per hour or day (UTC), in total and per agent",
      tag: 'agents',
      access: { kind: 'workspace', minRole: 'viewer' },
      query: ZUsageQuery,
      responses: { 200: { description: 'The report', schema: ZWorkspaceUsage } },
      problems: { 400: RANGE_PROBLEM },
    },
    async ({ query }, req, res) => {
      const { id: workspaceId } = currentWorkspace(req);
      const { totals, buckets, agents, from, to, bucket } = await report(deps, { workspaceId }, query);
      const body: TWorkspaceUsage = {
        from,
        to,
        bucket,
        totals,
        buckets,
        agents: agents.map(({ agentId, name, ...figures }) => ({ agent_id: agentId, name, ...figures })),
      };
      res.json(body);
    },
  );
}
