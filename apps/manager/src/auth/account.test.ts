// The signed-in user's own account: their sessions, ending them, and changing the password.
import { ZSessionInfo } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { z } from 'zod';
import {
  expectProblemShape,
  type ManagerTestContext,
  type SignedInUser,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { sessionHandle } from './my-sessions.js';

const ZSessionList = z.array(ZSessionInfo);

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

/** Another device of the user's: a second session of its own, with its own User-Agent. */
async function signInElsewhere(user: SignedInUser, userAgent = 'Other device/1.0') {
  const device = request.agent(ctx.app).set('User-Agent', userAgent);
  const response = await device.post('/api/v1/auth/login').send({ email: user.email, password: user.password });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${response.text}`);
  return device;
}

async function sessionsOf(agent: SignedInUser['agent']) {
  const response = await agent.get('/api/v1/auth/sessions/');
  expect(response.status).toBe(200);
  return ZSessionList.parse(response.body);
}

/** The session id behind the agent's cookie, found through the handle the API marks current. */
async function currentSidOf(user: SignedInUser): Promise<string> {
  const current = (await sessionsOf(user.agent)).find((session) => session.current);
  const rows = await ctx.database.prisma.session.findMany({ where: { userId: user.userId }, select: { sid: true } });
  const row = rows.find(({ sid }) => sessionHandle(sid) === current?.id);
  if (!row) throw new Error('no current session');
  return row.sid;
}

describe('GET /auth/sessions/', () => {
  it("lists the caller's open sessions, oldest first, marking the current one, named by a hash", async () => {
    const user = await signUpUser(ctx.app);
    const device = await signInElsewhere(user, 'Phone/2.0');
    const stranger = await signUpUser(ctx.app);

    const response = await device.get('/api/v1/auth/sessions');
    expect(response.headers['x-total-count']).toBe('2');
    const sessions = ZSessionList.parse(response.body);
    expect(sessions.map((session) => session.current)).toEqual([false, true]);
    expect(sessions[1]).toMatchObject({ user_agent: 'Phone/2.0', ip_address: expect.stringContaining('127.0.0.1') });
    for (const session of sessions) {
      expect(Date.parse(session.expires_at)).toBeGreaterThan(Date.now());
      expect(Date.parse(session.last_seen_at)).toBeGreaterThanOrEqual(Date.parse(session.created_at));
    }
    const sids = (await ctx.database.prisma.session.findMany({ where: { userId: user.userId } })).map((s) => s.sid);
    expect(sids).toHaveLength(2);
    for (const sid of sids) expect(response.text).not.toContain(sid);
    expect((await sessionsOf(stranger.agent)).map((session) => session.id)).not.toContain(sessions[0]?.id);
  });

  it('leaves out expired sessions and pages with limit and offset', async () => {
    const user = await signUpUser(ctx.app);
    await signInElsewhere(user);
    await signInElsewhere(user);
    const all = await sessionsOf(user.agent);
    expect(all).toHaveLength(3);
    await ctx.database.prisma.session.updateMany({
      where: { userId: user.userId, sid: { not: await currentSidOf(user) } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await sessionsOf(user.agent)).map((session) => session.current)).toEqual([true]);
    expectProblemShape(await user.agent.get('/api/v1/auth/sessions/?limit=0'), 400);
  });

  it('answers 401 without a session', async () => {
    expectProblemShape(await request(ctx.app).get('/api/v1/auth/sessions/'), 401);
  });
});

describe('DELETE /auth/sessions/:id', () => {
  it('ends another session of the caller: its cookie gets 401 at once, this one goes on', async () => {
    const user = await signUpUser(ctx.app);
    const device = await signInElsewhere(user);
    const other = (await sessionsOf(user.agent)).find((session) => !session.current);
    const response = await user.agent.delete(`/api/v1/auth/sessions/${other?.id}`);
    expect(response.status).toBe(204);
    expectProblemShape(await device.get('/api/v1/auth/me'), 401);
    expect((await user.agent.get('/api/v1/auth/me')).status).toBe(200);
    expect(await sessionsOf(user.agent)).toHaveLength(1);
  });

  it("answers 404 to another user's session, which goes on", async () => {
    const victim = await signUpUser(ctx.app);
    const attacker = await signUpUser(ctx.app);
    const [theirs] = await sessionsOf(victim.agent);
    expectProblemShape(await attacker.agent.delete(`/api/v1/auth/sessions/${theirs?.id}`), 404);
    expect((await victim.agent.get('/api/v1/auth/me')).status).toBe(200);
  });

  it('signs the caller out when it ends the current session', async () => {
    const user = await signUpUser(ctx.app);
    const [current] = await sessionsOf(user.agent);
    const response = await user.agent.delete(`/api/v1/auth/sessions/${current?.id}`);
    expect(response.status).toBe(204);
    expect(String(response.headers['set-cookie'])).toMatch(/^sid=;/);
    expectProblemShape(await user.agent.get('/api/v1/auth/me'), 401);
  });

  it('answers 400 to a malformed id, 404 to an unknown one and 401 without a session', async () => {
    const user = await signUpUser(ctx.app);
    expectProblemShape(await user.agent.delete('/api/v1/auth/sessions/not-a-session'), 400);
    expectProblemShape(await user.agent.delete(`/api/v1/auth/sessions/${'0'.repeat(64)}`), 404);
    expectProblemShape(await request(ctx.app).delete(`/api/v1/auth/sessions/${'0'.repeat(64)}`), 401);
  });
});

describe('POST /auth/logout-all', () => {
  it("ends every one of the caller's sessions, this one included, and no one else's", async () => {
    const user = await signUpUser(ctx.app);
    const devices = [await signInElsewhere(user), await signInElsewhere(user)];
    const bystander = await signUpUser(ctx.app);
    const response = await user.agent.post('/api/v1/auth/logout-all');
    expect(response.status).toBe(204);
    expect(String(response.headers['set-cookie'])).toMatch(/^sid=;/);
    for (const agent of [user.agent, ...devices]) expectProblemShape(await agent.get('/api/v1/auth/me'), 401);
    expect(await ctx.database.prisma.session.count({ where: { userId: user.userId } })).toBe(0);
    expect((await bystander.agent.get('/api/v1/auth/me')).status).toBe(200);
  });

  it('answers 401 without a session', async () => {
    expectProblemShape(await request(ctx.app).post('/api/v1/auth/logout-all'), 401);
  });
});

describe('POST /auth/password', () => {
  const NEW_PASSWORD = 'a brand new passphrase';

  it('changes the password and ends every other session, keeping this one under a new id', async () => {
    const user = await signUpUser(ctx.app);
    const devices = [await signInElsewhere(user), await signInElsewhere(user)];
    const before = await currentSidOf(user);
    const response = await user.agent
      .post('/api/v1/auth/password')
      .send({ current_password: user.password, new_password: NEW_PASSWORD });
    expect(response.status).toBe(204);

    for (const device of devices) expectProblemShape(await device.get('/api/v1/auth/me'), 401);
    expect((await user.agent.get('/api/v1/auth/me')).status).toBe(200);
    expect((await sessionsOf(user.agent)).map((session) => session.current)).toEqual([true]);
    // A new id: whoever had copied the old cookie holds nothing.
    expect(await currentSidOf(user)).not.toBe(before);
    expect(await ctx.database.prisma.session.count({ where: { sid: before } })).toBe(0);

    const login = (password: string) =>
      request(ctx.app).post('/api/v1/auth/login').send({ email: user.email, password });
    expectProblemShape(await login(user.password), 401);
    expect((await login(NEW_PASSWORD)).status).toBe(200);
  });

  it('when the current password is wrong, it answers 403 and changes nothing', async () => {
    const user = await signUpUser(ctx.app);
    const device = await signInElsewhere(user);
    const response = await user.agent
      .post('/api/v1/auth/password')
      .send({ current_password: 'not my password', new_password: NEW_PASSWORD });
    expectProblemShape(response, 403);
    expect((await device.get('/api/v1/auth/me')).status).toBe(200);
    const login = await request(ctx.app)
      .post('/api/v1/auth/login')
      .send({ email: user.email, password: user.password });
    expect(login.status).toBe(200);
  });

  it.each([
    ['the new password is too short', { current_password: 'whatever', new_password: 'short' }, ['new_password']],
    ['the current password is missing', { new_password: NEW_PASSWORD }, ['current_password']],
    ['a field is unknown', { current_password: 'x', new_password: NEW_PASSWORD, email: 'x' }, ['email']],
  ])('when %s, it answers 422 naming the field', async (_label, body, paths) => {
    const user = await signUpUser(ctx.app);
    const response = await user.agent.post('/api/v1/auth/password').send(body);
    expectProblemShape(response, 422);
    expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
  });

  it('answers 401 without a session', async () => {
    const response = await request(ctx.app)
      .post('/api/v1/auth/password')
      .send({ current_password: 'x', new_password: NEW_PASSWORD });
    expectProblemShape(response, 401);
  });
});
