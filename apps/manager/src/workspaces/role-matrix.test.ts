// Who may do what: every workspace and member route, for every role and for a non-member, on a
// fresh workspace per row, checking both the answer and whether the change happened.
import { randomUUID } from 'node:crypto';
import { type TRole, ZInvitation, ZInvitationCreated, ZMember, ZWorkspace } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { z } from 'zod';
import {
  addToWorkspace,
  expectProblemShape,
  inviteToWorkspace,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';

type Actor = TRole | 'non-member';
const ACTORS: Actor[] = ['owner', 'admin', 'member', 'viewer', 'non-member'];

/** `invitationId`: a pending invitation of someone else, as a plain member. */
type Fixture = { workspaceId: string; name: string; invitationId: string };

type RouteCase = {
  label: string;
  send: (actor: SignedInUser, fixture: Fixture) => request.Test;
  /** Checks the success body. */
  parse: (body: unknown) => void;
  /** Whether the request's change is in the database. */
  applied: (fixture: Fixture) => Promise<boolean>;
  expected: Record<Actor, number>;
};

let ctx: ManagerTestContext;
const users = {} as Record<'founder' | 'target' | 'newcomer' | Actor, SignedInUser>;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  for (const name of ['founder', 'target', 'newcomer', ...ACTORS] as const) {
    users[name] = await signUpUser(ctx.app, { name: `Matrix ${name}` });
  }
});
afterAll(() => ctx?.close());

/** A workspace founded by someone else, where the actor holds `role` and `target` is a plain member. */
async function makeFixture(actor: Actor): Promise<Fixture> {
  const name = `Matrix ${randomUUID()}`;
  const created = await users.founder.agent.post('/api/v1/workspaces/').send({ name });
  const workspaceId = ZWorkspace.parse(created.body).id;
  if (actor !== 'non-member') await addToWorkspace(users.founder, users[actor], actor, workspaceId);
  await addToWorkspace(users.founder, users.target, 'member', workspaceId);
  await inviteToWorkspace(users.founder, `pending-${randomUUID()}@example.test`, 'member', workspaceId);
  const invitation = await db().invitation.findFirstOrThrow({ where: { workspaceId } });
  return { workspaceId, name, invitationId: invitation.id };
}

const db = () => ctx.database.prisma;
const workspaceUrl = ({ workspaceId }: Fixture) => `/api/v1/workspaces/${workspaceId}`;
const membersUrl = (fixture: Fixture) => `${workspaceUrl(fixture)}/members/`;
const targetUrl = (fixture: Fixture) => `${membersUrl(fixture)}${users.target.userId}`;
const roleOf = async ({ workspaceId }: Fixture, user: SignedInUser) =>
  (await db().membership.findUnique({ where: { workspaceId_userId: { workspaceId, userId: user.userId } } }))?.role;
const nothingToApply = async () => false;

const ROUTES: RouteCase[] = [
  {
    label: 'GET /workspaces/:id',
    send: (actor, fixture) => actor.agent.get(workspaceUrl(fixture)),
    parse: (body) => ZWorkspace.parse(body),
    applied: nothingToApply,
    expected: { owner: 200, admin: 200, member: 200, viewer: 200, 'non-member': 404 },
  },
  {
    label: 'PATCH /workspaces/:id',
    send: (actor, fixture) => actor.agent.patch(workspaceUrl(fixture)).send({ name: 'Renamed' }),
    parse: (body) => expect(ZWorkspace.parse(body).name).toBe('Renamed'),
    applied: async ({ workspaceId }) =>
      (await db().workspace.findUniqueOrThrow({ where: { id: workspaceId } })).name === 'Renamed',
    expected: { owner: 200, admin: 200, member: 403, viewer: 403, 'non-member': 404 },
  },
  {
    label: 'DELETE /workspaces/:id',
    send: (actor, fixture) => actor.agent.delete(workspaceUrl(fixture)),
    parse: (body) => expect(body).toEqual({}),
    applied: async ({ workspaceId }) => (await db().workspace.count({ where: { id: workspaceId } })) === 0,
    expected: { owner: 204, admin: 403, member: 403, viewer: 403, 'non-member': 404 },
  },
  {
    label: 'GET /workspaces/:id/members/',
    send: (actor, fixture) => actor.agent.get(membersUrl(fixture)),
    parse: (body) => z.array(ZMember).parse(body),
    applied: nothingToApply,
    expected: { owner: 200, admin: 200, member: 200, viewer: 200, 'non-member': 404 },
  },
  {
    label: 'POST /workspaces/:id/members/',
    send: (actor, fixture) =>
      actor.agent.post(membersUrl(fixture)).send({ email: users.newcomer.email, role: 'member' }),
    parse: (body) => expect(ZInvitationCreated.parse(body).email).toBe(users.newcomer.email),
    // An invitation, not a member: nobody joins before accepting.
    applied: async (fixture) =>
      (await db().invitation.count({ where: { workspaceId: fixture.workspaceId, email: users.newcomer.email } })) ===
        1 && (await roleOf(fixture, users.newcomer)) === undefined,
    expected: { owner: 201, admin: 201, member: 403, viewer: 403, 'non-member': 404 },
  },
  {
    label: 'GET /workspaces/:id/invitations/',
    send: (actor, fixture) => actor.agent.get(`${workspaceUrl(fixture)}/invitations/`),
    parse: (body) => expect(z.array(ZInvitation).parse(body)).toHaveLength(1),
    applied: nothingToApply,
    expected: { owner: 200, admin: 200, member: 403, viewer: 403, 'non-member': 404 },
  },
  {
    label: 'DELETE /workspaces/:id/invitations/:invitation_id',
    send: (actor, fixture) => actor.agent.delete(`${workspaceUrl(fixture)}/invitations/${fixture.invitationId}`),
    parse: (body) => expect(body).toEqual({}),
    applied: async ({ invitationId }) => (await db().invitation.count({ where: { id: invitationId } })) === 0,
    expected: { owner: 204, admin: 204, member: 403, viewer: 403, 'non-member': 404 },
  },
  {
    label: 'PATCH /workspaces/:id/members/:user_id (another member)',
    send: (actor, fixture) => actor.agent.patch(targetUrl(fixture)).send({ role: 'viewer' }),
    parse: (body) => expect(ZMember.parse(body)).toMatchObject({ user_id: users.target.userId, role: 'viewer' }),
    applied: async (fixture) => (await roleOf(fixture, users.target)) === 'viewer',
    expected: { owner: 200, admin: 200, member: 403, viewer: 403, 'non-member': 404 },
  },
  {
    label: 'DELETE /workspaces/:id/members/:user_id (another member)',
    send: (actor, fixture) => actor.agent.delete(targetUrl(fixture)),
    parse: (body) => expect(body).toEqual({}),
    applied: async (fixture) => (await roleOf(fixture, users.target)) === undefined,
    expected: { owner: 204, admin: 204, member: 403, viewer: 403, 'non-member': 404 },
  },
];

const ROWS = ROUTES.flatMap((route) =>
  ACTORS.map((actor) => [route.label, actor, route.expected[actor], route] as const),
);

describe('role matrix', () => {
  it.each(ROWS)('%s as %s answers %i', async (_label, actor, status, route) => {
    const fixture = await makeFixture(actor);
    const response = await route.send(users[actor], fixture);
    if (status < 400) {
      expect(response.status).toBe(status);
      route.parse(response.body);
      if (route.applied !== nothingToApply) expect(await route.applied(fixture)).toBe(true);
    } else {
      expectProblemShape(response, status);
      expect(await route.applied(fixture)).toBe(false);
      if (status === 404) expect(response.text).not.toContain(fixture.name);
    }
  });
});

describe('without a session', () => {
  const ID = '5b2c8f8e-8d6a-4d5e-9c1e-7a7f2b9e0c11';
  const USER = '9d3f7a1c-2b4e-4f6a-8c0d-1e2f3a4b5c6d';
  // Every row has three entries: with fewer than the test function's parameters, jest would pass `done`.
  const CALLS: [string, string, object | undefined][] = [
    ['get', '/workspaces/', undefined],
    ['get', '/workspaces', undefined],
    ['post', '/workspaces/', { name: 'Anonymous' }],
    ['post', '/workspaces', { name: 'Anonymous' }],
    ['get', `/workspaces/${ID}`, undefined],
    ['patch', `/workspaces/${ID}`, { name: 'Anonymous' }],
    ['delete', `/workspaces/${ID}`, undefined],
    ['get', `/workspaces/${ID}/members/`, undefined],
    ['post', `/workspaces/${ID}/members/`, { email: 'a@example.test', role: 'owner' }],
    ['patch', `/workspaces/${ID}/members/${USER}`, { role: 'owner' }],
    ['delete', `/workspaces/${ID}/members/${USER}`, undefined],
    ['get', `/workspaces/${ID}/invitations/`, undefined],
    ['delete', `/workspaces/${ID}/invitations/${USER}`, undefined],
    ['post', `/invitations/${'t'.repeat(43)}/accept`, undefined],
    // The session is checked before the path, so a malformed id tells an anonymous caller nothing.
    ['get', '/workspaces/not-a-uuid', undefined],
  ];

  it.each(CALLS)('%s %s answers 401', async (method, path, body) => {
    const before = await db().workspace.count();
    const pending = request(ctx.app)[method as 'get' | 'post' | 'patch' | 'delete'](`/api/v1${path}`);
    const response = await (body ? pending.send(body) : pending);
    expectProblemShape(response, 401);
    expect(await db().workspace.count()).toBe(before);
  });

  it.each(CALLS)('%s %s with a forged session cookie answers 401', async (method, path, body) => {
    const pending = request(ctx.app)
      [method as 'get' | 'post' | 'patch' | 'delete'](`/api/v1${path}`)
      .set('Cookie', 'sid=s%3Aforged-session-id.Zm9yZ2VkLXNpZ25hdHVyZQ');
    const response = await (body ? pending.send(body) : pending);
    expectProblemShape(response, 401);
  });

  it("answers 401 on a real workspace's routes too, after its members sign out", async () => {
    const user = await signUpUser(ctx.app);
    expect((await user.agent.get(`/api/v1/workspaces/${user.workspaceId}`)).status).toBe(200);
    expect((await user.agent.post('/api/v1/auth/logout')).status).toBe(204);
    expectProblemShape(await user.agent.get(`/api/v1/workspaces/${user.workspaceId}`), 401);
    expectProblemShape(await user.agent.delete(`/api/v1/workspaces/${user.workspaceId}`), 401);
    expect(await db().workspace.count({ where: { id: user.workspaceId } })).toBe(1);
  });
});
