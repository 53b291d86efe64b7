// /agents/{id}/schedules: an agent's timetable. Every member reads it; members, admins and owners
// write it, as they write the agent.
import {
  CRON_EXPRESSION_MAX_LENGTH,
  ZPaginationQuery,
  ZSchedule,
  ZScheduleCreate,
  ZScheduleParams,
  ZScheduleUpdate,
} from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import type { Request } from 'express';
import { z } from 'zod';
import type { ApiRouter } from '../http/api-router.js';
import { sendPage, ZTotalCountHeader } from '../http/pagination.js';
import { currentUserId, currentWorkspace } from '../http/request-context.js';
import { ZIdParams } from '../resources/resource-routes.js';
import {
  createSchedule,
  deleteSchedule,
  getSchedule,
  listSchedules,
  type ScheduleContext,
  updateSchedule,
} from './schedule-service.js';

export type ScheduleRouteDependencies = { db: Db; now: () => Date; maxSchedulesPerAgent: number };

const TAG = 'schedules';
const NO_AGENT = { 404: 'No agent with this id in the workspace' };
const NO_SCHEDULE = { 404: 'No such agent in the workspace, or no such schedule of it' };
const INVALID = {
  422: `Body failed validation: a cron expression that is not five fields (at most ${CRON_EXPRESSION_MAX_LENGTH} characters) or names no time that comes, or a time zone that is not an IANA name`,
};

export function addScheduleRoutes(api: ApiRouter, deps: ScheduleRouteDependencies): void {
  const contextOf = (req: Request): ScheduleContext => ({
    ...deps,
    workspaceId: currentWorkspace(req).id,
    userId: currentUserId(req),
  });

  api.add(
    {
      method: 'post',
      path: '/agents/:id/schedules',
      operationId: 'createSchedule',
      summary: 'Create a schedule: each tick of its cron, read in its time zone, queues a background run as you',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZIdParams,
      body: ZScheduleCreate,
      responses: { 201: { description: 'The schedule with its next fire times', schema: ZSchedule } },
      problems: {
        ...NO_AGENT,
        ...INVALID,
        409: 'The agent has as many schedules as the operator allows (MAX_SCHEDULES_PER_AGENT, type urn:agentplane:problem:schedules-per-agent)',
      },
    },
    async ({ params, body }, req, res) => {
      res.status(201).json(await createSchedule(contextOf(req), params.id, body));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:id/schedules',
      operationId: 'listSchedules',
      summary: "List an agent's schedules, oldest first, with their next fire times and last fire",
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZIdParams,
      query: ZPaginationQuery,
      responses: { 200: { description: 'A page', schema: z.array(ZSchedule), headers: ZTotalCountHeader } },
      problems: NO_AGENT,
    },
    async ({ params, query }, req, res) => {
      sendPage(res, await listSchedules(contextOf(req), params.id, query));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/agents/:id/schedules/:schedule_id',
      operationId: 'getSchedule',
      summary: 'Get a schedule with its next fire times and last fire',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'viewer' },
      params: ZScheduleParams,
      responses: { 200: { description: 'The schedule', schema: ZSchedule } },
      problems: NO_SCHEDULE,
    },
    async ({ params }, req, res) => {
      res.json(await getSchedule(contextOf(req), params.id, params.schedule_id));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/agents/:id/schedules/:schedule_id',
      operationId: 'updateSchedule',
      summary:
        'Replace a schedule; you become its owner. It fires next at its first tick from now; enabling it clears a disabled reason and its failure count',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZScheduleParams,
      body: ZScheduleUpdate,
      responses: { 200: { description: 'The schedule', schema: ZSchedule } },
      problems: { ...NO_SCHEDULE, ...INVALID },
    },
    async ({ params, body }, req, res) => {
      res.json(await updateSchedule(contextOf(req), params.id, params.schedule_id, body));
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/agents/:id/schedules/:schedule_id',
      operationId: 'deleteSchedule',
      summary: 'Delete a schedule; the runs it queued stay',
      tag: TAG,
      access: { kind: 'workspace', minRole: 'member' },
      params: ZScheduleParams,
      responses: { 204: { description: 'Deleted' } },
      problems: NO_SCHEDULE,
    },
    async ({ params }, req, res) => {
      await deleteSchedule(contextOf(req), params.id, params.schedule_id);
      res.status(204).end();
    },
  );
}
