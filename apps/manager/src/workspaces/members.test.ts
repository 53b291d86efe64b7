import { type TRole, ZInvitationCreated, ZMember, ZWorkspace } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type request from 'supertest';
import { z } from 'zod';
import {
  addToWorkspace,
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';

const ZMemberList = z.array(ZMember);

const CAST = ['owner', 'coOwner', 'admin', 'member', 'member2', 'viewer', 'newcomer', 'outsider'] as const;
type CastName = (typeof CAST)[number];

let ctx: ManagerTestContext;
const cast = {} as Record<CastName, SignedInUser>;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  for (const name of CAST) cast[name] = await signUpUser(ctx.app, { name: `Cast ${name}` });
});
afterAll(() => ctx?.close());

/** A fresh workspace founded by cast.owner, with the given cast members added in order, through the API. */
async function makeTeam(roles: Partial<Record<Exclude<CastName, 'owner'>, TRole>> = {}): Promise<string> {
  const created = await cast.owner.agent.post('/api/v1/workspaces/').send({ name: 'Team' });
  if (created.status !== 201) throw new Error(`creating the team failed: ${created.text}`);
  const workspaceId = ZWorkspace.parse(created.body).id;
  for (const [name, role] of Object.entries(roles)) {
    await addToWorkspace(cast.owner, cast[name as CastName], role, workspaceId);
  }
  return workspaceId;
}

const membersUrl = (workspaceId: string) => `/api/v1/workspaces/${workspaceId}/members/`;
const memberUrl = (workspaceId: string, user: SignedInUser) => `${membersUrl(workspaceId)}${user.userId}`;

async function roleOf(workspaceId: string, user: SignedInUser): Promise<TRole | undefined> {
  const row = await ctx.database.prisma.membership.findUnique({
    where: { workspaceId_userId: { workspaceId, userId: user.userId } },
  });
  return row?.role;
}

function countOwners(workspaceId: string) {
  return ctx.database.prisma.membership.count({ where: { workspaceId, role: 'owner' } });
}

function errorPaths(response: request.Response): string[] {
  return (response.body.errors as { path: string }[]).map((error) => error.path);
}

describe('GET /workspaces/:id/members/', () => {
  it('lists every member in the order they joined, with email, name and role, to any member', async () => {
    const team = await makeTeam({ admin: 'admin', viewer: 'viewer', member: 'member' });
    const response = await cast.viewer.agent.get(membersUrl(team));
    expect(response.status).toBe(200);
    const members = ZMemberList.parse(response.body);
    expect(members.map(({ user_id, email, name, role }) => ({ user_id, email, name, role }))).toEqual(
      (['owner', 'admin', 'viewer', 'member'] as const).map((name) => ({
        user_id: cast[name].userId,
        email: cast[name].email,
        name: `Cast ${name}`,
        role: name,
      })),
    );
    expect(response.headers['x-total-count']).toBe('4');
  });

  it('pages with limit and offset, and answers without the trailing slash too', async () => {
    const team = await makeTeam({ admin: 'admin', viewer: 'viewer', member: 'member' });
    const response = await cast.owner.agent.get(`/api/v1/workspaces/${team}/members?limit=2&offset=1`);
    expect(response.status).toBe(200);
    expect(ZMemberList.parse(response.body).map((member) => member.user_id)).toEqual([
      cast.admin.userId,
      cast.viewer.userId,
    ]);
    expect(response.headers['x-total-count']).toBe('4');
    const past = await cast.owner.agent.get(`${membersUrl(team)}?offset=4`);
    expect(past.body).toEqual([]);
    expectProblemShape(await cast.owner.agent.get(`${membersUrl(team)}?limit=0`), 400);
  });
});

describe('POST /workspaces/:id/members/', () => {
  const accept = (user: SignedInUser, token: string) => user.agent.post(`/api/v1/invitations/${token}/accept`);
  const pendingFor = (workspaceId: string) => ctx.database.prisma.invitation.findMany({ where: { workspaceId } });

  it('invites an email, normalised; nobody becomes a member before accepting (201)', async () => {
    const team = await makeTeam({ admin: 'admin' });
    const response = await cast.admin.agent
      .post(membersUrl(team))
      .send({ email: `  ${cast.newcomer.email.toUpperCase()} `, role: 'member' });
    expect(response.status).toBe(201);
    const invitation = ZInvitationCreated.parse(response.body);
    expect(invitation).toMatchObject({
      workspace_id: team,
      email: cast.newcomer.email,
      role: 'member',
      invited_by: cast.admin.userId,
    });
    expect(await roleOf(team, cast.newcomer)).toBeUndefined();
    expectProblemShape(await cast.newcomer.agent.get(`/api/v1/workspaces/${team}`), 404);

    const accepted = await accept(cast.newcomer, invitation.token);
    expect(accepted.status).toBe(200);
    expect(ZWorkspace.parse(accepted.body)).toMatchObject({ id: team, role: 'member' });
    const opened = await cast.newcomer.agent.get(`/api/v1/workspaces/${team}`);
    expect(ZWorkspace.parse(opened.body).role).toBe('member');
  });

  it('answers alike whether or not an account uses the email, and stores only a hash of the token', async () => {
    const team = await makeTeam();
    const known = await cast.owner.agent.post(membersUrl(team)).send({ email: cast.newcomer.email, role: 'viewer' });
    const unknown = await cast.owner.agent.post(membersUrl(team)).send({ email: 'ghost@example.test', role: 'viewer' });
    expect([known.status, unknown.status]).toEqual([201, 201]);
    const shape = (body: object) => Object.keys(body).sort();
    expect(shape(unknown.body)).toEqual(shape(known.body));
    expect(ZInvitationCreated.parse(unknown.body).invited_by).toBe(cast.owner.userId);
    const stored = JSON.stringify(await pendingFor(team));
    for (const response of [known, unknown]) expect(stored).not.toContain(response.body.token);
    expect(await ctx.database.prisma.membership.count({ where: { workspaceId: team } })).toBe(1);
  });

  it('replaces a pending invitation of the same email: the old token stops working', async () => {
    const team = await makeTeam();
    const invite = (role: TRole) => cast.owner.agent.post(membersUrl(team)).send({ email: cast.newcomer.email, role });
    const first = ZInvitationCreated.parse((await invite('viewer')).body);
    const second = ZInvitationCreated.parse((await invite('admin')).body);
    expect((await pendingFor(team)).map((row) => row.id)).toEqual([second.id]);
    expectProblemShape(await accept(cast.newcomer, first.token), 404);
    expect((await accept(cast.newcomer, second.token)).status).toBe(200);
    expect(await roleOf(team, cast.newcomer)).toBe('admin');
  });

  it.each([
    ['the email is malformed', { email: 'not-an-email', role: 'member' }, ['email']],
    ['the role is unknown', { email: 'x@example.test', role: 'superuser' }, ['role']],
    ['the role is missing', { email: 'x@example.test' }, ['role']],
    ['a field is unknown', { email: 'x@example.test', role: 'member', user_id: 'x' }, ['user_id']],
  ])('when %s, it answers 422 naming the field', async (_label, body, paths) => {
    const team = await makeTeam();
    const response = await cast.owner.agent.post(membersUrl(team)).send(body);
    expectProblemShape(response, 422);
    expect(errorPaths(response)).toEqual(paths);
    expect(await pendingFor(team)).toEqual([]);
  });

  it('when the email is already a member, it answers 409 and keeps their role', async () => {
    const team = await makeTeam({ member: 'member' });
    const response = await cast.owner.agent.post(membersUrl(team)).send({ email: cast.member.email, role: 'admin' });
    expectProblemShape(response, 409);
    expect(await roleOf(team, cast.member)).toBe('member');
    expect(await pendingFor(team)).toEqual([]);
  });

  it.each(['member', 'viewer'] as const)(
    'when a %s invites someone, it answers 403 and invites no one',
    async (role) => {
      const team = await makeTeam({ [role]: role });
      const response = await cast[role].agent
        .post(membersUrl(team))
        .send({ email: cast.newcomer.email, role: 'viewer' });
      expectProblemShape(response, 403);
      expect(await pendingFor(team)).toEqual([]);
    },
  );

  it('when an admin invites an owner, it answers 403 and invites no one', async () => {
    const team = await makeTeam({ admin: 'admin' });
    const response = await cast.admin.agent.post(membersUrl(team)).send({ email: cast.newcomer.email, role: 'owner' });
    expectProblemShape(response, 403);
    expect(await pendingFor(team)).toEqual([]);
  });

  it('lets an admin invite an admin, and an owner invite an owner, who join with that role once they accept', async () => {
    const team = await makeTeam({ admin: 'admin' });
    const asAdmin = await cast.admin.agent.post(membersUrl(team)).send({ email: cast.member.email, role: 'admin' });
    expect(asAdmin.status).toBe(201);
    const asOwner = await cast.owner.agent.post(membersUrl(team)).send({ email: cast.newcomer.email, role: 'owner' });
    expect(asOwner.status).toBe(201);
    expect(await countOwners(team)).toBe(1);
    expect((await accept(cast.member, ZInvitationCreated.parse(asAdmin.body).token)).status).toBe(200);
    expect((await accept(cast.newcomer, ZInvitationCreated.parse(asOwner.body).token)).status).toBe(200);
    expect(await roleOf(team, cast.member)).toBe('admin');
    expect(await countOwners(team)).toBe(2);
  });
});

describe('PATCH /workspaces/:id/members/:user_id', () => {
  it("lets an admin change a member's role (200), at once", async () => {
    const team = await makeTeam({ admin: 'admin', member: 'member' });
    const response = await cast.admin.agent.patch(memberUrl(team, cast.member)).send({ role: 'viewer' });
    expect(response.status).toBe(200);
    expect(ZMember.parse(response.body)).toMatchObject({ user_id: cast.member.userId, role: 'viewer' });
    expect(await roleOf(team, cast.member)).toBe('viewer');
  });

  it.each(['member', 'viewer'] as const)("when a %s changes someone's role, it answers 403", async (role) => {
    const team = await makeTeam({ [role]: role, member2: 'member' });
    const response = await cast[role].agent.patch(memberUrl(team, cast.member2)).send({ role: 'viewer' });
    expectProblemShape(response, 403);
    expect(await roleOf(team, cast.member2)).toBe('member');
  });

  it('when a member promotes themself to admin, it answers 403', async () => {
    const team = await makeTeam({ member: 'member' });
    const response = await cast.member.agent.patch(memberUrl(team, cast.member)).send({ role: 'admin' });
    expectProblemShape(response, 403);
    expect(await roleOf(team, cast.member)).toBe('member');
  });

  it("when an admin changes an owner's role, it answers 403 and the owner stays owner", async () => {
    const team = await makeTeam({ admin: 'admin', coOwner: 'owner' });
    const response = await cast.admin.agent.patch(memberUrl(team, cast.coOwner)).send({ role: 'viewer' });
    expectProblemShape(response, 403);
    expect(await roleOf(team, cast.coOwner)).toBe('owner');
  });

  it('when an admin promotes someone to owner, it answers 403', async () => {
    const team = await makeTeam({ admin: 'admin', member: 'member' });
    const response = await cast.admin.agent.patch(memberUrl(team, cast.member)).send({ role: 'owner' });
    expectProblemShape(response, 403);
    expect(await roleOf(team, cast.member)).toBe('member');
  });

  it('when the last owner demotes themself, it answers 409 and they stay owner', async () => {
    const team = await makeTeam({ admin: 'admin' });
    const response = await cast.owner.agent.patch(memberUrl(team, cast.owner)).send({ role: 'admin' });
    expectProblemShape(response, 409);
    expect(response.body.detail).toMatch(/at least one owner/);
    expect(await roleOf(team, cast.owner)).toBe('owner');
  });

  it('lets an owner make another owner, who may then demote the first; the remaining owner cannot step down', async () => {
    const team = await makeTeam({ admin: 'admin' });
    const promoted = await cast.owner.agent.patch(memberUrl(team, cast.admin)).send({ role: 'owner' });
    expect(promoted.status).toBe(200);
    expect(ZMember.parse(promoted.body).role).toBe('owner');
    const demoted = await cast.admin.agent.patch(memberUrl(team, cast.owner)).send({ role: 'member' });
    expect(demoted.status).toBe(200);
    expect(ZMember.parse(demoted.body)).toMatchObject({ user_id: cast.owner.userId, role: 'member' });
    expectProblemShape(await cast.admin.agent.patch(memberUrl(team, cast.admin)).send({ role: 'admin' }), 409);
    expect(await countOwners(team)).toBe(1);
  });

  it('when a body is missing the role, it answers 422 naming role', async () => {
    const team = await makeTeam({ member: 'member' });
    const response = await cast.owner.agent.patch(memberUrl(team, cast.member)).send({});
    expectProblemShape(response, 422);
    expect(errorPaths(response)).toEqual(['role']);
  });

  it('when two owners demote each other at the same time, exactly one wins and one owner always remains', async () => {
    for (let round = 0; round < 6; round++) {
      const team = await makeTeam({ coOwner: 'owner' });
      const [first, second] = await Promise.all([
        cast.owner.agent.patch(memberUrl(team, cast.coOwner)).send({ role: 'admin' }),
        cast.coOwner.agent.patch(memberUrl(team, cast.owner)).send({ role: 'admin' }),
      ]);
      const statuses = [first.status, second.status];
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      const [winner, loser] = first.status === 200 ? [first, second] : [second, first];
      expect(ZMember.parse(winner.body).role).toBe('admin');
      // The loser's demotion would leave no owner (409). If its access check ran only after the
      // winner had committed, it is no longer an owner and may not touch the owner role (403).
      expect([409, 403]).toContain(loser.status);
      expectProblemShape(loser, loser.status);
      expect(await countOwners(team)).toBe(1);
    }
  });
});

describe('DELETE /workspaces/:id/members/:user_id', () => {
  it('lets an admin remove a member (204)', async () => {
    const team = await makeTeam({ admin: 'admin', member: 'member' });
    const response = await cast.admin.agent.delete(memberUrl(team, cast.member));
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(await roleOf(team, cast.member)).toBeUndefined();
  });

  it.each(['member', 'viewer'] as const)('when a %s removes another member, it answers 403', async (role) => {
    const team = await makeTeam({ [role]: role, member2: 'member' });
    const response = await cast[role].agent.delete(memberUrl(team, cast.member2));
    expectProblemShape(response, 403);
    expect(await roleOf(team, cast.member2)).toBe('member');
  });

  it.each(['viewer', 'member', 'admin', 'owner'] as const)(
    'lets a %s leave by removing themself (204)',
    async (role) => {
      // cast.owner founded the team; the leaving owner is a second one, so an owner remains.
      const leaver = role === 'owner' ? 'coOwner' : role;
      const team = await makeTeam({ [leaver]: role });
      const response = await cast[leaver].agent.delete(memberUrl(team, cast[leaver]));
      expect(response.status).toBe(204);
      expect(await roleOf(team, cast[leaver])).toBeUndefined();
      expectProblemShape(await cast[leaver].agent.get(`/api/v1/workspaces/${team}`), 404);
    },
  );

  it('when the last owner tries to leave, it answers 409 and they stay', async () => {
    const team = await makeTeam({ admin: 'admin' });
    const response = await cast.owner.agent.delete(memberUrl(team, cast.owner));
    expectProblemShape(response, 409);
    expect(await roleOf(team, cast.owner)).toBe('owner');
  });

  it('when an admin removes an owner, it answers 403 and the owner stays', async () => {
    const team = await makeTeam({ admin: 'admin', coOwner: 'owner' });
    const response = await cast.admin.agent.delete(memberUrl(team, cast.coOwner));
    expectProblemShape(response, 403);
    expect(await roleOf(team, cast.coOwner)).toBe('owner');
  });

  it('lets an owner remove an admin and another owner (204)', async () => {
    const team = await makeTeam({ admin: 'admin', coOwner: 'owner' });
    expect((await cast.owner.agent.delete(memberUrl(team, cast.admin))).status).toBe(204);
    expect((await cast.owner.agent.delete(memberUrl(team, cast.coOwner))).status).toBe(204);
    const remaining = ZMemberList.parse((await cast.owner.agent.get(membersUrl(team))).body);
    expect(remaining.map((member) => member.user_id)).toEqual([cast.owner.userId]);
  });

  it('when two owners leave at the same time, one of them stays', async () => {
    for (let round = 0; round < 4; round++) {
      const team = await makeTeam({ coOwner: 'owner' });
      const responses = await Promise.all([
        cast.owner.agent.delete(memberUrl(team, cast.owner)),
        cast.coOwner.agent.delete(memberUrl(team, cast.coOwner)),
      ]);
      expect(responses.map((response) => response.status).sort()).toEqual([204, 409]);
      expect(await countOwners(team)).toBe(1);
    }
  });
});

describe('membership changes take effect on the very next request', () => {
  it('when a member is removed, their next request to the workspace answers 404', async () => {
    const team = await makeTeam({ member: 'member' });
    expect((await cast.member.agent.get(`/api/v1/workspaces/${team}`)).status).toBe(200);
    expect((await cast.owner.agent.delete(memberUrl(team, cast.member))).status).toBe(204);

    expectProblemShape(await cast.member.agent.get(`/api/v1/workspaces/${team}`), 404);
    expectProblemShape(await cast.member.agent.get(membersUrl(team)), 404);
    const list = z.array(ZWorkspace).parse((await cast.member.agent.get('/api/v1/workspaces/?limit=1000')).body);
    expect(list.map((workspace) => workspace.id)).not.toContain(team);
  });

  it('when an admin is demoted to viewer, their next rename answers 403 and they read as viewer', async () => {
    const team = await makeTeam({ admin: 'admin' });
    expect((await cast.admin.agent.patch(`/api/v1/workspaces/${team}`).send({ name: 'By admin' })).status).toBe(200);
    expect((await cast.owner.agent.patch(memberUrl(team, cast.admin)).send({ role: 'viewer' })).status).toBe(200);

    expectProblemShape(await cast.admin.agent.patch(`/api/v1/workspaces/${team}`).send({ name: 'Again' }), 403);
    const read = await cast.admin.agent.get(`/api/v1/workspaces/${team}`);
    expect(ZWorkspace.parse(read.body)).toMatchObject({ name: 'By admin', role: 'viewer' });
  });

  it('when a viewer is promoted to admin, their next request may invite members', async () => {
    const team = await makeTeam({ viewer: 'viewer' });
    const add = () => cast.viewer.agent.post(membersUrl(team)).send({ email: cast.newcomer.email, role: 'viewer' });
    expectProblemShape(await add(), 403);
    expect((await cast.owner.agent.patch(memberUrl(team, cast.viewer)).send({ role: 'admin' })).status).toBe(200);
    expect((await add()).status).toBe(201);
  });
});
