// /api/v1/agents/{id}/schedules through HTTP: CRUD, validation, caps, roles and workspaces.
import { randomUUID } from 'node:crypto';
import { type TSchedule, ZSchedule } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { createAgentThroughApi } from '../testing/resource-fixtures.js';

const MAX_PER_AGENT = 3;
let ctx: ManagerTestContext;
let owner: SignedInUser;
let stranger: SignedInUser;
let agentId: string;
const members: Record<'member' | 'viewer', SignedInUser> = {} as never;

const BODY = { name: 'Morning digest', cron: '0 8 * * 1-5', timezone: 'Europe/Paris', message: 'Summarise the news' };
const path = (agent = agentId) => `/api/v1/agents/${agent}/schedules`;

beforeAll(async () => {
  ctx = await startManagerTestApp({ MAX_SCHEDULES_PER_AGENT: String(MAX_PER_AGENT) });
  owner = await signUpUser(ctx.app);
  stranger = await signUpUser(ctx.app);
  for (const role of ['member', 'viewer'] as const) {
    members[role] = await signUpUser(ctx.app);
    await addToWorkspace(owner, members[role], role);
  }
  agentId = (await createAgentThroughApi(owner)).id;
});
afterAll(async () => {
  await ctx?.close();
});

async function createSchedule(body: object = BODY, agent = agentId): Promise<TSchedule> {
  const response = await owner.agent.post(path(agent)).send(body);
  expect(response.status).toBe(201);
  return ZSchedule.parse(response.body);
}

describe('creating a schedule', () => {
  it('answers 201 with its defaults, its owner and its next five fire times in UTC', async () => {
    const schedule = await createSchedule();
    expect(schedule).toMatchObject({
      ...BODY,
      agent_id: agentId,
      owner_id: owner.userId,
      enabled: true,
      thread: 'new',
      catch_up: 'skip',
      consecutive_failures: 0,
      disabled_reason: null,
      last_fire: null,
    });
    expect(schedule.next_fire_times).toHaveLength(5);
    for (const tick of schedule.next_fire_times) {
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Paris',
        hour: '2-digit',
        minute: '2-digit',
        weekday: 'short',
      }).format(new Date(tick));
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 08:00$/);
    }
    await owner.agent.delete(`${path()}/${schedule.id}`);
  });

  it('lists no fire times for a disabled schedule', async () => {
    const schedule = await createSchedule({ ...BODY, enabled: false });
    expect(schedule.next_fire_times).toEqual([]);
    await owner.agent.delete(`${path()}/${schedule.id}`);
  });

  it.each([
    ['six fields (seconds)', { cron: '0 * * * * *' }, 'cron'],
    ['four fields', { cron: '* * * *' }, 'cron'],
    ['a field out of range', { cron: '61 * * * *' }, 'cron'],
    ['a date that never comes', { cron: '0 0 30 2 *' }, 'cron'],
    ['a nickname', { cron: '@hourly' }, 'cron'],
    ['a huge cron', { cron: `${'1,'.repeat(500)}1 * * * *` }, 'cron'],
    ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ['an offset instead of a zone', { timezone: '+01:00' }, 'timezone'],
    ['an empty message', { message: '  ' }, 'message'],
    ['a huge message', { message: 'x'.repeat(16_001) }, 'message'],
    ['a huge name', { name: 'n'.repeat(201) }, 'name'],
    ['an unknown thread mode', { thread: 'shared' }, 'thread'],
    ['an unknown catch-up policy', { catch_up: 'all' }, 'catch_up'],
    ['an unknown field', { every: 'minute' }, ''],
  ])('refuses %s with a 422 naming the field', async (_label, change, field) => {
    const response = await owner.agent.post(path()).send({ ...BODY, ...change });
    expectProblemShape(response, 422);
    expect(JSON.stringify(response.body.errors)).toContain(`"${field}`);
  });

  it.each([
    ['a NUL character', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800b'],
  ])('refuses a message with %s with a 4xx', async (_label, message) => {
    const response = await owner.agent
      .post(path())
      .set('content-type', 'application/json')
      .send(`{"name":"x","cron":"* * * * *","timezone":"UTC","message":${JSON.stringify(message)}}`);
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });

  it('refuses one past MAX_SCHEDULES_PER_AGENT with a 409, even when creates race', async () => {
    const agent = (await createAgentThroughApi(owner)).id;
    const responses = await Promise.all(
      Array.from({ length: MAX_PER_AGENT + 2 }, () => owner.agent.post(path(agent)).send(BODY)),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(MAX_PER_AGENT);
    const refused = responses.filter((response) => response.status === 409);
    expect(refused).toHaveLength(2);
    expectProblemShape(refused[0] as request.Response, 409);
    expect(refused[0]?.body.type).toBe('urn:agentplane:problem:schedules-per-agent');
  });
});

describe('reading, replacing and deleting', () => {
  it('lists with X-Total-Count, gets one, replaces it and deletes it', async () => {
    const agent = (await createAgentThroughApi(owner)).id;
    const first = await createSchedule(BODY, agent);
    const second = await createSchedule({ ...BODY, name: 'Evening' }, agent);
    const list = await members.viewer.agent.get(path(agent)).set('x-workspace-id', owner.workspaceId);
    expect(list.status).toBe(200);
    expect(list.headers['x-total-count']).toBe('2');
    expect((list.body as TSchedule[]).map((schedule) => schedule.id)).toEqual([first.id, second.id]);

    const one = await members.viewer.agent.get(`${path(agent)}/${first.id}`).set('x-workspace-id', owner.workspaceId);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(expect.objectContaining({ id: first.id, name: 'Morning digest' }));

    const replaced = await members.member.agent
      .patch(`${path(agent)}/${first.id}`)
      .set('x-workspace-id', owner.workspaceId)
      .send({ ...BODY, cron: '*/15 * * * *', timezone: 'America/New_York', thread: 'fixed', catch_up: 'once' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      cron: '*/15 * * * *',
      timezone: 'America/New_York',
      thread: 'fixed',
      catch_up: 'once',
      owner_id: members.member.userId,
    });

    const deleted = await owner.agent.delete(`${path(agent)}/${first.id}`);
    expect(deleted.status).toBe(204);
    expectProblemShape(await owner.agent.get(`${path(agent)}/${first.id}`), 404);
  });

  it('goes with its agent when the agent is deleted', async () => {
    const agent = (await createAgentThroughApi(owner)).id;
    const schedule = await createSchedule(BODY, agent);
    expect((await owner.agent.delete(`/api/v1/agents/${agent}`)).status).toBe(204);
    expect(await ctx.database.prisma.agentSchedule.count({ where: { id: schedule.id } })).toBe(0);
  });
});

describe('access', () => {
  let scheduleId: string;
  beforeAll(async () => {
    scheduleId = (await createSchedule()).id;
  });

  it('answers 401 without a session', async () => {
    expectProblemShape(await request(ctx.app).get(path()), 401);
    expectProblemShape(await request(ctx.app).post(path()).send(BODY), 401);
  });

  it('lets a viewer read but not write (403)', async () => {
    const viewer = members.viewer.agent;
    const workspace = owner.workspaceId;
    expectProblemShape(await viewer.post(path()).set('x-workspace-id', workspace).send(BODY), 403);
    expectProblemShape(await viewer.patch(`${path()}/${scheduleId}`).set('x-workspace-id', workspace).send(BODY), 403);
    expectProblemShape(await viewer.delete(`${path()}/${scheduleId}`).set('x-workspace-id', workspace), 403);
  });

  it("answers 404 for another workspace's agent or schedule, and for unknown ids", async () => {
    const other = stranger.agent;
    expectProblemShape(await other.get(path()), 404);
    expectProblemShape(await other.post(path()).send(BODY), 404);
    expectProblemShape(await other.get(`${path()}/${scheduleId}`), 404);
    expectProblemShape(await other.patch(`${path()}/${scheduleId}`).send(BODY), 404);
    expectProblemShape(await other.delete(`${path()}/${scheduleId}`), 404);
    const strangersAgent = (await createAgentThroughApi(stranger)).id;
    // A schedule id under an agent it does not belong to.
    expectProblemShape(await stranger.agent.get(`${path(strangersAgent)}/${scheduleId}`), 404);
    expectProblemShape(await owner.agent.get(`${path()}/${randomUUID()}`), 404);
    expectProblemShape(await owner.agent.get(path(randomUUID())), 404);
  });

  it('answers 400 for ids that are not UUIDs', async () => {
    expectProblemShape(await owner.agent.get(path('nope')), 400);
    expectProblemShape(await owner.agent.get(`${path()}/nope`), 400);
  });
});
