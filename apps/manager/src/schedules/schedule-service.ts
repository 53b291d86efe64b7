// An agent's schedules: create, read, replace, delete. A write sets next_fire_at from the clock, so a
// schedule enabled (or edited) now fires at its next tick, never at ticks that passed before. The member
// who writes a schedule becomes its owner: its runs then only ever carry a message their owner wrote.
import {
  SCHEDULE_NEXT_FIRE_TIMES,
  type TPaginationQuery,
  type TRunStatus,
  type TSchedule,
  type TScheduleCreate,
} from '@agentplane/contracts';
import type { Db, Tx } from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import { lockAgent } from '../agents/lock-agent.js';
import { checkCronSchedule, nextTick, nextTicks } from './schedule-times.js';

export const MAX_SCHEDULES_PER_AGENT_DEFAULT = 20;

export type ScheduleContext = {
  db: Db;
  workspaceId: string;
  /** The member acting, who owns what they write. */
  userId: string;
  now: () => Date;
  maxSchedulesPerAgent: number;
};

const NO_AGENT = 'No such agent.';
const NO_SCHEDULE = 'No such schedule.';

const SCHEDULE_FIELDS = {
  id: true,
  agentId: true,
  ownerId: true,
  name: true,
  cron: true,
  timezone: true,
  message: true,
  enabled: true,
  thread: true,
  catchUp: true,
  consecutiveFailures: true,
  disabledReason: true,
  createdAt: true,
  updatedAt: true,
  fires: { orderBy: { tick: 'desc' }, take: 1 },
} as const;

type ScheduleRow = {
  id: string;
  agentId: string;
  ownerId: string;
  name: string;
  cron: string;
  timezone: string;
  message: string;
  enabled: boolean;
  thread: string;
  catchUp: string;
  consecutiveFailures: number;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  fires: { tick: Date; outcome: string; reason: string | null; runId: string | null; firedAt: Date }[];
};

async function readRunStatuses(db: Db, agentId: string, runIds: string[]): Promise<Map<string, TRunStatus>> {
  if (runIds.length === 0) return new Map();
  const runs = await db.agentRun.findMany({
    where: { agentId, id: { in: runIds } },
    select: { id: true, status: true },
  });
  return new Map(runs.map((run) => [run.id, run.status]));
}

function toSchedule(row: ScheduleRow, now: Date, runStatuses: Map<string, TRunStatus>): TSchedule {
  const [fire] = row.fires;
  return {
    id: row.id,
    agent_id: row.agentId,
    owner_id: row.ownerId,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    message: row.message,
    enabled: row.enabled,
    thread: row.thread as TSchedule['thread'],
    catch_up: row.catchUp as TSchedule['catch_up'],
    next_fire_times: row.enabled ? nextTicks(row, now, SCHEDULE_NEXT_FIRE_TIMES).map((tick) => tick.toISOString()) : [],
    consecutive_failures: row.consecutiveFailures,
    disabled_reason: row.disabledReason,
    last_fire:
      fire === undefined
        ? null
        : {
            tick: fire.tick.toISOString(),
            outcome: fire.outcome as 'queued' | 'skipped',
            reason: fire.reason,
            run_id: fire.runId,
            run_status: fire.runId === null ? null : (runStatuses.get(fire.runId) ?? null),
            fired_at: fire.firedAt.toISOString(),
          },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

async function presentSchedules(ctx: ScheduleContext, agentId: string, rows: ScheduleRow[]): Promise<TSchedule[]> {
  const runIds = rows.flatMap((row) => row.fires.flatMap((fire) => (fire.runId === null ? [] : [fire.runId])));
  const statuses = await readRunStatuses(ctx.db, agentId, runIds);
  const now = ctx.now();
  return rows.map((row) => toSchedule(row, now, statuses));
}

async function requireAgent(db: Db | Tx, workspaceId: string, agentId: string): Promise<void> {
  const agent = await db.agent.findFirst({ where: { id: agentId, workspaceId }, select: { id: true } });
  if (!agent) throw new AppError('not_found', NO_AGENT);
}

/** The stored fields of a body: enabling (again) clears what the scheduler recorded against it. */
function scheduleFields(ctx: ScheduleContext, body: TScheduleCreate) {
  checkCronSchedule(body);
  return {
    ownerId: ctx.userId,
    name: body.name,
    cron: body.cron,
    timezone: body.timezone,
    message: body.message,
    enabled: body.enabled,
    thread: body.thread,
    catchUp: body.catch_up,
    nextFireAt: body.enabled ? nextTick(body, ctx.now()) : null,
    ...(body.enabled ? { consecutiveFailures: 0, disabledReason: null } : {}),
  };
}

/**
 * Refuses (409) a schedule past the cap. Under the agent's row lock: two creates at the cap count one
 * after the other, and a delete of the agent waits or is waited for.
 */
async function refuseScheduleOverCap(tx: Tx, ctx: ScheduleContext, agentId: string): Promise<void> {
  if ((await lockAgent(tx, ctx.workspaceId, agentId)) === undefined) throw new AppError('not_found', NO_AGENT);
  const count = await tx.agentSchedule.count({ where: { agentId } });
  if (count < ctx.maxSchedulesPerAgent) return;
  throw new AppError(
    'conflict',
    `This agent has ${count} schedules, the most the operator allows (MAX_SCHEDULES_PER_AGENT=${ctx.maxSchedulesPerAgent}); delete one first.`,
    { type: 'schedules-per-agent' },
  );
}

export async function createSchedule(ctx: ScheduleContext, agentId: string, body: TScheduleCreate): Promise<TSchedule> {
  const fields = scheduleFields(ctx, body);
  const row = await ctx.db.$transaction(async (tx) => {
    await refuseScheduleOverCap(tx, ctx, agentId);
    return tx.agentSchedule.create({
      data: { ...fields, workspaceId: ctx.workspaceId, agentId },
      select: SCHEDULE_FIELDS,
    });
  });
  const [schedule] = await presentSchedules(ctx, agentId, [row]);
  return schedule as TSchedule;
}

export async function listSchedules(
  ctx: ScheduleContext,
  agentId: string,
  page: TPaginationQuery,
): Promise<{ items: TSchedule[]; total: number }> {
  await requireAgent(ctx.db, ctx.workspaceId, agentId);
  const where = { agentId, workspaceId: ctx.workspaceId };
  const [rows, total] = await Promise.all([
    ctx.db.agentSchedule.findMany({
      where,
      select: SCHEDULE_FIELDS,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      skip: page.offset,
      take: page.limit,
    }),
    ctx.db.agentSchedule.count({ where }),
  ]);
  return { items: await presentSchedules(ctx, agentId, rows), total };
}

async function findScheduleRow(db: Db | Tx, ctx: ScheduleContext, agentId: string, id: string) {
  const row = await db.agentSchedule.findFirst({
    where: { id, agentId, workspaceId: ctx.workspaceId },
    select: SCHEDULE_FIELDS,
  });
  if (!row) throw new AppError('not_found', NO_SCHEDULE);
  return row;
}

export async function getSchedule(ctx: ScheduleContext, agentId: string, id: string): Promise<TSchedule> {
  const [schedule] = await presentSchedules(ctx, agentId, [await findScheduleRow(ctx.db, ctx, agentId, id)]);
  return schedule as TSchedule;
}

export async function updateSchedule(
  ctx: ScheduleContext,
  agentId: string,
  id: string,
  body: TScheduleCreate,
): Promise<TSchedule> {
  const fields = scheduleFields(ctx, body);
  const updated = await ctx.db.agentSchedule.updateMany({
    where: { id, agentId, workspaceId: ctx.workspaceId },
    data: fields,
  });
  if (updated.count === 0) throw new AppError('not_found', NO_SCHEDULE);
  return getSchedule(ctx, agentId, id);
}

export async function deleteSchedule(ctx: ScheduleContext, agentId: string, id: string): Promise<void> {
  const deleted = await ctx.db.agentSchedule.deleteMany({ where: { id, agentId, workspaceId: ctx.workspaceId } });
  if (deleted.count === 0) throw new AppError('not_found', NO_SCHEDULE);
}
