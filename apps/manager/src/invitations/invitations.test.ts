import { randomUUID } from 'node:crypto';
import { type TRole, ZInvitation, ZInvitationCreated, ZWorkspace } from '@agentplane/contracts';
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
import { pruneExpiredInvitations } from './invitation-service.js';

let ctx: ManagerTestContext;
let owner: SignedInUser;
let admin: SignedInUser;
let outsider: SignedInUser;
beforeAll(async () => {
  ctx = await startManagerTestApp();
  [owner, admin, outsider] = [await signUpUser(ctx.app), await signUpUser(ctx.app), await signUpUser(ctx.app)];
  await addToWorkspace(owner, admin, 'admin');
});
afterAll(() => ctx?.close());

const db = () => ctx.database.prisma;
const acceptUrl = (token: string) => `/api/v1/invitations/${token}/accept`;
const invitationsUrl = (workspaceId: string) => `/api/v1/workspaces/${workspaceId}/invitations/`;

/** A user who signed up after being invited, with the token of their invitation to the owner's workspace. */
async function invitee(role: TRole = 'member') {
  const user = await signUpUser(ctx.app);
  const token = await inviteToWorkspace(owner, user.email, role);
  return { user, token };
}

async function roleIn(workspaceId: string, user: SignedInUser) {
  const row = await db().membership.findUnique({ where: { workspaceId_userId: { workspaceId, userId: user.userId } } });
  return row?.role;
}

describe('POST /invitations/:token/accept', () => {
  it('makes the invitee a member with the invited role, and consumes the invitation', async () => {
    const { user, token } = await invitee('viewer');
    const response = await user.agent.post(acceptUrl(token));
    expect(response.status).toBe(200);
    expect(ZWorkspace.parse(response.body)).toMatchObject({ id: owner.workspaceId, role: 'viewer' });
    expect(await roleIn(owner.workspaceId, user)).toBe('viewer');
    expect(await db().invitation.count({ where: { email: user.email } })).toBe(0);
  });

  it('accepts an invitation made before the account existed, once it signs up with that email', async () => {
    const email = `later-${randomUUID()}@example.test`;
    const token = await inviteToWorkspace(owner, email.toUpperCase(), 'member');
    const user = await signUpUser(ctx.app, { email });
    expect((await user.agent.post(acceptUrl(token))).status).toBe(200);
    expect(await roleIn(owner.workspaceId, user)).toBe('member');
  });

  it('cannot be accepted twice', async () => {
    const { user, token } = await invitee();
    expect((await user.agent.post(acceptUrl(token))).status).toBe(200);
    expectProblemShape(await user.agent.post(acceptUrl(token)), 404);
  });

  it('when accepted twice at the same time, exactly one accept wins', async () => {
    for (let round = 0; round < 5; round++) {
      const { user, token } = await invitee();
      const responses = await Promise.all([user.agent.post(acceptUrl(token)), user.agent.post(acceptUrl(token))]);
      expect(responses.map((response) => response.status).sort()).toEqual([200, 404]);
      const loser = responses.find((response) => response.status !== 200) as request.Response;
      expectProblemShape(loser, 404);
      expect(await roleIn(owner.workspaceId, user)).toBe('member');
    }
  });

  it('cannot be accepted by another account, and tells it nothing of the invitation', async () => {
    const { user, token } = await invitee();
    const response = await outsider.agent.post(acceptUrl(token));
    expectProblemShape(response, 403);
    expect(response.text).not.toContain(user.email);
    expect(response.text).not.toContain(owner.workspaceId);
    expect(await roleIn(owner.workspaceId, outsider)).toBeUndefined();
    // The invitee can still use it.
    expect((await user.agent.post(acceptUrl(token))).status).toBe(200);
  });

  it('cannot be accepted after it expired', async () => {
    const { user, token } = await invitee();
    await db().invitation.updateMany({
      where: { email: user.email },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const response = await user.agent.post(acceptUrl(token));
    expectProblemShape(response, 404);
    expect(response.body.detail).toMatch(/expired/);
    expect(await roleIn(owner.workspaceId, user)).toBeUndefined();
  });

  it('cannot be accepted after it was revoked', async () => {
    const { user, token } = await invitee();
    const { id } = await db().invitation.findFirstOrThrow({ where: { email: user.email } });
    expect((await admin.agent.delete(`${invitationsUrl(owner.workspaceId)}${id}`)).status).toBe(204);
    expectProblemShape(await user.agent.post(acceptUrl(token)), 404);
    expect(await roleIn(owner.workspaceId, user)).toBeUndefined();
  });

  it('when the invitee is a member already, it answers 409, changes no role and keeps the invitation', async () => {
    const { user, token } = await invitee('admin');
    // Joined another way meanwhile (the API refuses to invite a member, so only a race or an operator does this).
    await db().membership.create({ data: { workspaceId: owner.workspaceId, userId: user.userId, role: 'viewer' } });
    expectProblemShape(await user.agent.post(acceptUrl(token)), 409);
    expect(await roleIn(owner.workspaceId, user)).toBe('viewer');
    expect(await db().invitation.count({ where: { email: user.email } })).toBe(1);
  });

  it('when accepted while being revoked, either the member joins or the revocation wins, never both', async () => {
    for (let round = 0; round < 5; round++) {
      const { user, token } = await invitee();
      const { id } = await db().invitation.findFirstOrThrow({ where: { email: user.email } });
      const [accepted, revoked] = await Promise.all([
        user.agent.post(acceptUrl(token)),
        admin.agent.delete(`${invitationsUrl(owner.workspaceId)}${id}`),
      ]);
      expect([
        [200, 404],
        [404, 204],
      ]).toContainEqual([accepted.status, revoked.status]);
      expect(await roleIn(owner.workspaceId, user)).toBe(accepted.status === 200 ? 'member' : undefined);
      expect(await db().invitation.count({ where: { id } })).toBe(0);
    }
  });

  it('answers 404 to an unknown token, 400 to a malformed one and 401 without a session', async () => {
    const { user, token } = await invitee();
    expectProblemShape(await user.agent.post(acceptUrl('A'.repeat(43))), 404);
    expectProblemShape(await user.agent.post(acceptUrl('not-a-token')), 400);
    expectProblemShape(await user.agent.post(acceptUrl(`${token}x`)), 400);
    expectProblemShape(await request(ctx.app).post(acceptUrl(token)), 401);
    expect(await roleIn(owner.workspaceId, user)).toBeUndefined();
  });
});

describe('GET /workspaces/:id/invitations/', () => {
  it('lists the pending invitations of the workspace, oldest first, without tokens', async () => {
    const team = ZWorkspace.parse((await owner.agent.post('/api/v1/workspaces/').send({ name: 'Listed' })).body).id;
    const emails = ['a', 'b', 'c'].map((name) => `${name}-${randomUUID()}@example.test`);
    const tokens: string[] = [];
    for (const email of emails) tokens.push(await inviteToWorkspace(owner, email, 'viewer', team));
    await inviteToWorkspace(owner, `elsewhere-${randomUUID()}@example.test`, 'viewer');
    await db().invitation.updateMany({ where: { email: emails[2] }, data: { expiresAt: new Date(Date.now() - 1) } });

    const response = await owner.agent.get(invitationsUrl(team));
    expect(response.status).toBe(200);
    const listed = z.array(ZInvitation).parse(response.body);
    expect(listed.map((invitation) => invitation.email)).toEqual(emails.slice(0, 2));
    expect(response.headers['x-total-count']).toBe('2');
    for (const token of tokens) expect(response.text).not.toContain(token);

    const page = await owner.agent.get(`/api/v1/workspaces/${team}/invitations?limit=1&offset=1`);
    expect(
      z
        .array(ZInvitation)
        .parse(page.body)
        .map((invitation) => invitation.email),
    ).toEqual([emails[1]]);
    expectProblemShape(await owner.agent.get(`${invitationsUrl(team)}?limit=0`), 400);
  });

  it('answers 404 for a workspace the caller is not a member of, and 400 for a malformed id', async () => {
    expectProblemShape(await outsider.agent.get(invitationsUrl(owner.workspaceId)), 404);
    expectProblemShape(await outsider.agent.get(invitationsUrl('not-a-uuid')), 400);
  });
});

describe('DELETE /workspaces/:id/invitations/:invitation_id', () => {
  const pendingId = async (email: string) => (await db().invitation.findFirstOrThrow({ where: { email } })).id;

  it('answers 404 for an unknown id and for an invitation of another workspace, which it leaves alone', async () => {
    expectProblemShape(await owner.agent.delete(`${invitationsUrl(owner.workspaceId)}${randomUUID()}`), 404);
    const email = `theirs-${randomUUID()}@example.test`;
    await inviteToWorkspace(outsider, email, 'member');
    const theirs = await pendingId(email);
    expectProblemShape(await owner.agent.delete(`${invitationsUrl(owner.workspaceId)}${theirs}`), 404);
    expectProblemShape(await owner.agent.delete(`${invitationsUrl(outsider.workspaceId)}${theirs}`), 404);
    expect(await db().invitation.count({ where: { id: theirs } })).toBe(1);
    expectProblemShape(await owner.agent.delete(`${invitationsUrl(owner.workspaceId)}not-a-uuid`), 400);
  });

  it('lets only an owner revoke an invitation to the owner role', async () => {
    const email = `future-owner-${randomUUID()}@example.test`;
    await inviteToWorkspace(owner, email, 'owner');
    const id = await pendingId(email);
    expectProblemShape(await admin.agent.delete(`${invitationsUrl(owner.workspaceId)}${id}`), 403);
    expect(await db().invitation.count({ where: { id } })).toBe(1);
    expect((await owner.agent.delete(`${invitationsUrl(owner.workspaceId)}${id}`)).status).toBe(204);
    expect(await db().invitation.count({ where: { id } })).toBe(0);
  });
});

describe('inviting', () => {
  it('sets the expiry from INVITATION_TTL_SECONDS', async () => {
    const short = await startManagerTestApp({ INVITATION_TTL_SECONDS: '120' });
    try {
      const founder = await signUpUser(short.app);
      const response = await founder.agent
        .post(`/api/v1/workspaces/${founder.workspaceId}/members/`)
        .send({ email: 'soon@example.test', role: 'viewer' });
      const invitation = ZInvitationCreated.parse(response.body);
      const lifetime = Date.parse(invitation.expires_at) - Date.parse(invitation.created_at);
      expect(lifetime).toBeGreaterThanOrEqual(119_000);
      expect(lifetime).toBeLessThanOrEqual(121_000);
    } finally {
      await short.close();
    }
  });
});

describe('inviting one email twice at the same time', () => {
  it('leaves one invitation, whose token is the only one that works', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signUpUser(ctx.app);
      const tokens = await Promise.all([
        inviteToWorkspace(owner, user.email, 'viewer'),
        inviteToWorkspace(admin, user.email, 'member', owner.workspaceId),
      ]);
      expect(await db().invitation.count({ where: { email: user.email } })).toBe(1);
      const statuses: number[] = [];
      for (const token of tokens) statuses.push((await user.agent.post(acceptUrl(token))).status);
      expect(statuses.sort()).toEqual([200, 404]);
    }
  });
});

describe('pruneExpiredInvitations', () => {
  it('removes the invitations that expired, and only those', async () => {
    const [stale, fresh] = [`stale-${randomUUID()}@example.test`, `fresh-${randomUUID()}@example.test`];
    await inviteToWorkspace(owner, stale, 'viewer');
    await inviteToWorkspace(owner, fresh, 'viewer');
    await db().invitation.updateMany({ where: { email: stale }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect(await pruneExpiredInvitations(db())).toBeGreaterThanOrEqual(1);
    expect(await db().invitation.count({ where: { email: { in: [stale, fresh] } } })).toBe(1);
  });
});
