// The scheduler against a real database, with its clock in the test's hands: schedules are created
// through the API, their next tick then set where the test's clock starts. Runs are finished as an
// engine would finish them, as the database owner (scheduled-run-engine.test.ts has a real engine do it).
import { aguiThreadKey, type TSchedule } from '@agentplane/contracts';
import { createPrisma, type Db } from '@agentplane/db';
import { createLogger } from '@agentplane/server-kit';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  addToWorkspace,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { createAgentThroughApi } from '../testing/resource-fixtures.js';
import { nextTick } from './schedule-times.js';
import { runSchedulerPass } from './scheduler.js';

const ISSUER = 'https://manager.example.test';
const SETTINGS = { issuer: ISSUER, maxConsecutiveFailures: 3, firesKept: 5 };
const logger = createLogger({ name: 'test', level: 'silent' });

let ctx: ManagerTestContext;
let owner: SignedInUser;
let agentId: string;
let replicaB: Db;

beforeAll(async () => {
  ctx = await startManagerTestApp();
  owner = await signUpUser(ctx.app);
  agentId = (await createAgentThroughApi(owner)).id;
  replicaB = createPrisma(ctx.database.url);
});
afterAll(async () => {
  await replicaB?.$disconnect();
  await ctx?.close();
});

const db = () => ctx.database.prisma;

function passAt(instant: Date | string, replica: Db = db()) {
  return runSchedulerPass({ ...SETTINGS, db: replica, logger, now: () => new Date(instant) });
}

/** A schedule made through the API by `by`, whose next tick is `firstTick`. */
async function scheduleFrom(firstTick: Date | string, body: Record<string, unknown> = {}, by = owner, agent = agentId) {
  const response = await by.agent
    .post(`/api/v1/agents/${agent}/schedules`)
    .set('x-workspace-id', owner.workspaceId)
    .send({ name: 'Digest', cron: '* * * * *', timezone: 'UTC', message: 'Summarise the day', ...body });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  const { id } = response.body as TSchedule;
  await db().agentSchedule.update({ where: { id }, data: { nextFireAt: new Date(firstTick) } });
  return id;
}

type RunRow = {
  id: string;
  thread_id: string;
  thread_key: string;
  issuer: string;
  subject: string;
  source: string;
  status: string;
  input: unknown;
};

function runsOf(scheduleId: string): Promise<RunRow[]> {
  return db().$queryRaw<RunRow[]>`
    SELECT id, thread_id, thread_key, issuer, subject, source::text, status::text, input FROM agent_runs
    WHERE id LIKE ${`schedule:${scheduleId}:%`} ORDER BY id`;
}

/** Ends the schedule's open runs as an engine would. */
function endRuns(scheduleId: string, status: 'succeeded' | 'failed') {
  return db().$executeRaw`
    UPDATE agent_runs SET status = ${status}::"RunStatus", finished_at = now()
    WHERE id LIKE ${`schedule:${scheduleId}:%`} AND status IN ('pending', 'running')`;
}

const readSchedule = (id: string) => db().agentSchedule.findUniqueOrThrow({ where: { id } });
const getThroughApi = async (id: string) =>
  (await owner.agent.get(`/api/v1/agents/${agentId}/schedules/${id}`)).body as TSchedule;

describe('a due tick', () => {
  it("queues one pending background run as the schedule's owner, in the thread the owner's own runs use", async () => {
    const id = await scheduleFrom('2026-01-01T10:00:00Z', { message: 'What changed today?' });
    const [channel] = await db().$queryRaw<{ run_channel: string }[]>`
      SELECT run_channel FROM engine_channels WHERE agent_id = ${agentId}::uuid`;
    const listener = await ctx.database.createPool({ max: 1 }).connect();
    const news: string[] = [];
    listener.on('notification', (message) => news.push(message.payload ?? ''));
    const outcomes = await (async () => {
      try {
        await listener.query(`LISTEN "${channel?.run_channel}"`);
        const fired = await passAt('2026-01-01T10:00:02Z');
        await waitUntil(() => news.includes('queue'), { what: "the 'queue' news on the agent's run channel" });
        return fired;
      } finally {
        listener.release();
      }
    })();

    const runId = `schedule:${id}:2026-01-01T10:00:00.000Z`;
    expect(outcomes).toEqual([{ kind: 'queued', scheduleId: id, tick: new Date('2026-01-01T10:00:00Z'), runId }]);
    const [run] = await runsOf(id);
    expect(run).toMatchObject({
      id: runId,
      thread_id: runId,
      thread_key: aguiThreadKey(agentId, { issuer: ISSUER, subject: owner.userId }, runId),
      issuer: ISSUER,
      subject: owner.userId,
      source: 'schedule',
      status: 'pending',
      input: {
        threadId: runId,
        runId,
        messages: [{ id: `${runId}:message`, role: 'user', content: 'What changed today?' }],
      },
    });
    expect((await readSchedule(id)).nextFireAt).toEqual(new Date('2026-01-01T10:01:00Z'));
    expect((await getThroughApi(id)).last_fire).toMatchObject({
      tick: '2026-01-01T10:00:00.000Z',
      outcome: 'queued',
      run_id: runId,
      run_status: 'pending',
    });
    await endRuns(id, 'succeeded');
    expect((await getThroughApi(id)).last_fire?.run_status).toBe('succeeded');
    await db().agentSchedule.delete({ where: { id } });
  });

  it('of a fixed-thread schedule continues the one thread of the schedule', async () => {
    const id = await scheduleFrom('2026-01-01T10:00:00Z', { thread: 'fixed' });
    await passAt('2026-01-01T10:00:01Z');
    await endRuns(id, 'succeeded');
    await passAt('2026-01-01T10:01:01Z');
    const runs = await runsOf(id);
    expect(runs.map((run) => run.thread_id)).toEqual([`schedule:${id}`, `schedule:${id}`]);
    await db().agentSchedule.delete({ where: { id } });
  });

  it('is not fired again by a second pass, nor a tick before it by a clock that went back', async () => {
    const id = await scheduleFrom('2026-01-01T10:00:00Z');
    await passAt('2026-01-01T10:00:01Z');
    expect(await passAt('2026-01-01T10:00:30Z')).toEqual([]);
    expect(await passAt('2026-01-01T09:00:00Z')).toEqual([]);
    expect(await runsOf(id)).toHaveLength(1);
    await db().agentSchedule.delete({ where: { id } });
  });
});

describe('two scheduler replicas on separate connection pools', () => {
  it('fire each tick of each schedule exactly once', async () => {
    const ids = await Promise.all(Array.from({ length: 8 }, () => scheduleFrom('2026-02-01T00:00:00Z')));
    for (let minute = 0; minute < 5; minute += 1) {
      const now = new Date(Date.UTC(2026, 1, 1, 0, minute, 1));
      // Each replica runs several passes at once, as a slow pass and the next tick's would overlap.
      await Promise.all([passAt(now), passAt(now, replicaB), passAt(now), passAt(now, replicaB)]);
      await Promise.all(ids.map((id) => endRuns(id, 'succeeded')));
    }
    for (const id of ids) {
      const runs = await runsOf(id);
      expect(runs.map((run) => run.id)).toEqual(
        [0, 1, 2, 3, 4].map((minute) => `schedule:${id}:2026-02-01T00:0${minute}:00.000Z`),
      );
      expect(await db().scheduleFire.count({ where: { scheduleId: id } })).toBe(5);
    }
    await db().agentSchedule.deleteMany({ where: { id: { in: ids } } });
  });
});

describe('catch-up after downtime', () => {
  const hourly = { cron: '0 * * * *' };

  it('skip: fires nothing for the missed ticks, records the newest as missed, and resumes at the next tick', async () => {
    const id = await scheduleFrom('2026-03-01T10:00:00Z', { ...hourly, catch_up: 'skip' });
    const outcomes = await passAt('2026-03-01T13:20:00Z');
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'skipped', tick: new Date('2026-03-01T13:00:00Z') })]);
    expect(await runsOf(id)).toEqual([]);
    expect((await readSchedule(id)).nextFireAt).toEqual(new Date('2026-03-01T14:00:00Z'));
    expect((await getThroughApi(id)).last_fire).toMatchObject({ outcome: 'skipped', run_id: null });
    await passAt('2026-03-01T14:00:05Z');
    expect((await runsOf(id)).map((run) => run.id)).toEqual([`schedule:${id}:2026-03-01T14:00:00.000Z`]);
    await db().agentSchedule.delete({ where: { id } });
  });

  it('once: fires exactly one run for all the missed ticks, then resumes at the next tick', async () => {
    const id = await scheduleFrom('2026-03-01T10:00:00Z', { ...hourly, catch_up: 'once' });
    await Promise.all([passAt('2026-03-01T13:20:00Z'), passAt('2026-03-01T13:20:00Z', replicaB)]);
    await passAt('2026-03-01T13:40:00Z');
    expect((await runsOf(id)).map((run) => run.id)).toEqual([`schedule:${id}:2026-03-01T13:00:00.000Z`]);
    expect((await readSchedule(id)).nextFireAt).toEqual(new Date('2026-03-01T14:00:00Z'));
    await db().agentSchedule.delete({ where: { id } });
  });
});

describe('DST, walking the clock minute by minute through the night', () => {
  async function walk(timezone: string, cron: string, from: string, minutes: number) {
    const start = new Date(from);
    const id = await scheduleFrom(nextTick({ cron, timezone }, start) as Date, { cron, timezone });
    for (let minute = 0; minute < minutes; minute += 1) {
      await passAt(new Date(start.getTime() + minute * 60_000 + 5_000));
      await endRuns(id, 'succeeded');
    }
    const ticks = (await runsOf(id)).map((run) => run.id.slice(`schedule:${id}:`.length));
    await db().agentSchedule.delete({ where: { id } });
    return ticks;
  }

  it('Europe/Paris spring-forward: 02:30 fires once, at 03:00 CEST', async () => {
    expect(await walk('Europe/Paris', '30 2 * * *', '2026-03-28T23:30:00Z', 180)).toEqual(['2026-03-29T01:00:00.000Z']);
  });

  it('Europe/Paris fall-back: 02:30 fires once, at the first 02:30 (CEST)', async () => {
    expect(await walk('Europe/Paris', '30 2 * * *', '2026-10-24T23:30:00Z', 180)).toEqual(['2026-10-25T00:30:00.000Z']);
  });

  it('America/New_York spring-forward: 02:30 fires once, at 03:00 EDT', async () => {
    expect(await walk('America/New_York', '30 2 * * *', '2026-03-08T05:30:00Z', 180)).toEqual([
      '2026-03-08T07:00:00.000Z',
    ]);
  });

  it('America/New_York fall-back: 01:30 fires once, at the first 01:30 (EDT)', async () => {
    expect(await walk('America/New_York', '30 1 * * *', '2026-11-01T04:30:00Z', 180)).toEqual([
      '2026-11-01T05:30:00.000Z',
    ]);
  });
});

describe('a failing schedule', () => {
  it('queues no run while its previous run is still going, and says so', async () => {
    const id = await scheduleFrom('2026-04-01T10:00:00Z');
    await passAt('2026-04-01T10:00:01Z');
    const outcomes = await passAt('2026-04-01T10:01:01Z');
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'skipped', tick: new Date('2026-04-01T10:01:00Z') })]);
    expect((await getThroughApi(id)).last_fire?.reason).toMatch(/previous run .* was still pending/);
    await endRuns(id, 'succeeded');
    await passAt('2026-04-01T10:02:01Z');
    expect(await runsOf(id)).toHaveLength(2);
    await db().agentSchedule.delete({ where: { id } });
  });

  it('disables itself after SCHEDULE_MAX_CONSECUTIVE_FAILURES runs in a row failed, until enabled again', async () => {
    const id = await scheduleFrom('2026-04-02T10:00:00Z');
    for (let minute = 0; minute < 4; minute += 1) {
      await passAt(new Date(Date.UTC(2026, 3, 2, 10, minute, 1)));
      await endRuns(id, 'failed');
    }
    // Three runs failed; the fourth tick found the third's failure and disabled the schedule instead.
    expect(await runsOf(id)).toHaveLength(3);
    const disabled = await getThroughApi(id);
    expect(disabled).toMatchObject({ enabled: false, consecutive_failures: 3, next_fire_times: [] });
    expect(disabled.disabled_reason).toMatch(/3 runs in a row failed/);
    expect(await passAt('2026-04-02T10:05:01Z')).toEqual([]);

    const {
      id: _,
      agent_id,
      owner_id,
      next_fire_times,
      consecutive_failures,
      disabled_reason,
      last_fire,
      created_at,
      updated_at,
      ...body
    } = disabled;
    const enabled = await owner.agent
      .patch(`/api/v1/agents/${agentId}/schedules/${id}`)
      .send({ ...body, enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toMatchObject({ enabled: true, consecutive_failures: 0, disabled_reason: null });
    expect((enabled.body as TSchedule).next_fire_times).toHaveLength(5);
    await db().agentSchedule.delete({ where: { id } });
  });

  it('counts a success as the end of a failing streak', async () => {
    const id = await scheduleFrom('2026-04-03T10:00:00Z');
    for (const [minute, status] of [
      [0, 'failed'],
      [1, 'failed'],
      [2, 'succeeded'],
      [3, 'failed'],
      [4, 'failed'],
    ] as const) {
      await passAt(new Date(Date.UTC(2026, 3, 3, 10, minute, 1)));
      await endRuns(id, status);
    }
    await passAt('2026-04-03T10:05:01Z');
    expect(await readSchedule(id)).toMatchObject({ enabled: true, consecutiveFailures: 2 });
    await db().agentSchedule.delete({ where: { id } });
  });
});

describe("a schedule's owner", () => {
  it('leaving the workspace disables the schedule instead of running as them', async () => {
    const member = await signUpUser(ctx.app);
    await addToWorkspace(owner, member, 'member');
    const id = await scheduleFrom('2026-05-01T10:00:00Z', {}, member);
    expect((await readSchedule(id)).ownerId).toBe(member.userId);
    const removed = await owner.agent.delete(`/api/v1/workspaces/${owner.workspaceId}/members/${member.userId}`);
    expect(removed.status).toBe(204);
    expect(await passAt('2026-05-01T10:00:01Z')).toEqual([expect.objectContaining({ kind: 'disabled' })]);
    expect(await runsOf(id)).toEqual([]);
    expect((await getThroughApi(id)).disabled_reason).toMatch(/owner is no longer a member/);
    await db().agentSchedule.delete({ where: { id } });
  });
});

describe('fire records', () => {
  it('are kept to the newest few per schedule', async () => {
    const id = await scheduleFrom('2026-06-01T10:00:00Z');
    for (let minute = 0; minute < 8; minute += 1) {
      await passAt(new Date(Date.UTC(2026, 5, 1, 10, minute, 1)));
      await endRuns(id, 'succeeded');
    }
    const fires = await db().scheduleFire.findMany({ where: { scheduleId: id }, orderBy: { tick: 'asc' } });
    expect(fires.map((fire) => fire.tick.toISOString())).toEqual(
      [3, 4, 5, 6, 7].map((minute) => `2026-06-01T10:0${minute}:00.000Z`),
    );
    await db().agentSchedule.delete({ where: { id } });
  });
});
