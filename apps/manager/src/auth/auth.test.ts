import { ZMe } from '@agentplane/contracts';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

function sessionCookieOf(response: request.Response, name = 'sid'): string {
  const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  const sid = cookies.find((cookie) => cookie.startsWith(`${name}=`));
  if (!sid) throw new Error(`no ${name} cookie in ${JSON.stringify(cookies)}`);
  return sid;
}

const cookieValue = (setCookie: string) => setCookie.split(';')[0] as string;

describe('sign-up, me, logout and login', () => {
  it('runs the whole flow with a server-side session', async () => {
    const agent = request.agent(ctx.app);
    const signup = await agent
      .post('/api/v1/auth/signup')
      .send({ email: '  Grace@Example.TEST ', password: 'a long password', name: 'Grace' });
    expect(signup.status).toBe(201);
    const me = ZMe.parse(signup.body);
    expect(me.user).toMatchObject({ email: 'grace@example.test', name: 'Grace' });
    expect(me.workspaces).toEqual([{ id: me.default_workspace_id, name: "Grace's workspace", role: 'owner' }]);

    const sid = sessionCookieOf(signup);
    expect(sid).toMatch(/; HttpOnly/i);
    expect(sid).toMatch(/; SameSite=Lax/i);
    expect(sid).toMatch(/; Path=\//);
    expect(sid).not.toMatch(/; Secure/i);
    expect(sid).toMatch(/; Expires=/);

    const read = await agent.get('/api/v1/auth/me');
    expect(read.body).toEqual(me);
    // The idle expiry moves on the server; reads do not re-send the cookie.
    expect(read.headers['set-cookie']).toBeUndefined();

    const logout = await agent.post('/api/v1/auth/logout');
    expect(logout.status).toBe(204);
    expect(sessionCookieOf(logout)).toMatch(/^sid=;/);
    expectProblemShape(await agent.get('/api/v1/auth/me'), 401);
    // The session is gone on the server too, so replaying the old cookie does not help.
    expectProblemShape(await request(ctx.app).get('/api/v1/auth/me').set('Cookie', cookieValue(sid)), 401);

    const login = await agent
      .post('/api/v1/auth/login')
      .send({ email: 'GRACE@example.test', password: 'a long password' });
    expect(login.status).toBe(200);
    expect(ZMe.parse(login.body)).toEqual(me);
    expect((await agent.get('/api/v1/auth/me')).status).toBe(200);
  });

  it('gives a new session id at login and retires the old one', async () => {
    const user = await signUpUser(ctx.app);
    const first = cookieValue(
      sessionCookieOf(await user.agent.post('/api/v1/auth/login').send({ email: user.email, password: user.password })),
    );
    const second = cookieValue(
      sessionCookieOf(
        await request(ctx.app)
          .post('/api/v1/auth/login')
          .set('Cookie', first)
          .send({ email: user.email, password: user.password }),
      ),
    );
    expect(second).not.toBe(first);
    expectProblemShape(await request(ctx.app).get('/api/v1/auth/me').set('Cookie', first), 401);
    expect((await request(ctx.app).get('/api/v1/auth/me').set('Cookie', second)).status).toBe(200);
  });

  it('answers 401 to a tampered, forged or missing cookie', async () => {
    const user = await signUpUser(ctx.app);
    const good = cookieValue(
      sessionCookieOf(await user.agent.post('/api/v1/auth/login').send({ email: user.email, password: user.password })),
    );
    const [name, value] = good.split('=') as [string, string];
    const tampered = `${name}=${value.slice(0, -3)}${value.endsWith('abc') ? 'xyz' : 'abc'}`;
    expectProblemShape(await request(ctx.app).get('/api/v1/auth/me').set('Cookie', tampered), 401);
    expectProblemShape(await request(ctx.app).get('/api/v1/auth/me').set('Cookie', 'sid=s%3Aforged.signature'), 401);
    expectProblemShape(await request(ctx.app).get('/api/v1/auth/me'), 401);
  });

  it('expires a session after 24 h idle and after 7 days in all', async () => {
    const idle = await signUpUser(ctx.app);
    const old = await signUpUser(ctx.app);
    await ctx.database.prisma.session.updateMany({
      where: { userId: idle.userId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await ctx.database.prisma.session.updateMany({
      where: { userId: old.userId },
      data: { createdAt: new Date(Date.now() - 7 * 24 * 3600 * 1000 - 1000) },
    });
    expectProblemShape(await idle.agent.get('/api/v1/auth/me'), 401);
    expectProblemShape(await old.agent.get('/api/v1/auth/me'), 401);
    expect(await ctx.database.prisma.session.count({ where: { userId: { in: [idle.userId, old.userId] } } })).toBe(0);
  });

  it('ends every session of a user whose account is deleted', async () => {
    const user = await signUpUser(ctx.app);
    await ctx.database.prisma.user.delete({ where: { id: user.userId } });
    expectProblemShape(await user.agent.get('/api/v1/auth/me'), 401);
  });
});

describe('bad sign-ups and sign-ins', () => {
  it('answers 409 to an email already in use, whatever its case', async () => {
    const user = await signUpUser(ctx.app);
    const response = await request(ctx.app)
      .post('/api/v1/auth/signup')
      .send({ email: user.email.toUpperCase(), password: 'another password' });
    expectProblemShape(response, 409);
  });

  it('answers 422 naming each invalid or unknown field', async () => {
    const response = await request(ctx.app)
      .post('/api/v1/auth/signup')
      .send({ email: 'not-an-email', password: 'short', role: 'owner' });
    expectProblemShape(response, 422);
    expect(response.body.errors.map((error: { path: string }) => error.path).sort()).toEqual([
      'email',
      'password',
      'role',
    ]);
  });

  it('answers wrong password and unknown email with the same generic 401', async () => {
    const user = await signUpUser(ctx.app);
    const wrongPassword = await request(ctx.app)
      .post('/api/v1/auth/login')
      .send({ email: user.email, password: 'not the password' });
    const unknownEmail = await request(ctx.app)
      .post('/api/v1/auth/login')
      .send({ email: 'nobody@example.test', password: 'not the password' });
    expectProblemShape(wrongPassword, 401);
    expectProblemShape(unknownEmail, 401);
    expect(wrongPassword.body.detail).toBe(unknownEmail.body.detail);
    expect(wrongPassword.headers['set-cookie']).toBeUndefined();
  });

  it.each([
    ['login', 'a NUL', 'nul\u0000@example.test'],
    ['login', 'a lone surrogate', 'lone\ud800@example.test'],
    ['signup', 'a NUL', 'nul\u0000@example.test'],
    ['signup', 'a lone surrogate', 'lone\ud800@example.test'],
  ])(
    'answers a %s with %s in the email with 422 naming email, and stores nothing of it',
    async (path, _label, email) => {
      const response = await request(ctx.app).post(`/api/v1/auth/${path}`).send({ email, password: 'long enough' });
      expectProblemShape(response, 422);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual(['email']);
      const keys = await ctx.database.prisma.rateLimitCounter.findMany({ select: { key: true } });
      expect(keys.filter(({ key }) => key.includes('nul') || key.includes('lone'))).toEqual([]);
    },
  );

  it('answers 400 to malformed JSON and 401 to logout-free me', async () => {
    const response = await request(ctx.app)
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send('{"email":');
    expectProblemShape(response, 400);
  });
});

describe('when sign-up is disabled', () => {
  it('answers 403 and still lets existing users sign in', async () => {
    const closed = await startManagerTestApp({ ALLOW_SIGNUP: 'false' });
    try {
      expectProblemShape(
        await request(closed.app)
          .post('/api/v1/auth/signup')
          .send({ email: 'x@example.test', password: 'long enough' }),
        403,
      );
      expect(await closed.database.prisma.user.count()).toBe(0);
    } finally {
      await closed.close();
    }
  });
});

describe('cookie flags behind HTTPS', () => {
  /** A manager behind a TLS-terminating proxy on loopback, with more env. */
  const secureApp = (env: NodeJS.ProcessEnv = {}) =>
    startManagerTestApp({ COOKIE_SECURE: 'true', TRUST_PROXY: 'loopback', ...env });
  const overHttps = (test: request.Test) => test.set('X-Forwarded-Proto', 'https');
  const signUpOverHttps = (app: ManagerTestContext['app'], email: string) =>
    overHttps(request(app).post('/api/v1/auth/signup')).send({ email, password: 'long enough' });

  it('names the cookie __Host-sid: Secure, Path=/ and no Domain, and reads no plain sid', async () => {
    const secure = await secureApp();
    try {
      const response = await signUpOverHttps(secure.app, 'secure@example.test');
      expect(response.status).toBe(201);
      const cookie = sessionCookieOf(response, '__Host-sid');
      expect(cookie).toMatch(/; Secure/i);
      expect(cookie).toMatch(/; Path=\/(;|$)/);
      expect(cookie).toMatch(/; SameSite=Lax/i);
      expect(cookie).not.toMatch(/; Domain=/i);

      const me = (value: string) => overHttps(request(secure.app).get('/api/v1/auth/me')).set('Cookie', value);
      expect((await me(cookieValue(cookie))).status).toBe(200);
      expectProblemShape(await me(cookieValue(cookie).replace(/^__Host-sid=/, 'sid=')), 401);

      const logout = await overHttps(request(secure.app).post('/api/v1/auth/logout')).set(
        'Cookie',
        cookieValue(cookie),
      );
      expect(sessionCookieOf(logout, '__Host-sid')).toMatch(/^__Host-sid=;.*; Secure/i);
      const openapi = await request(secure.app).get('/api/v1/openapi.json');
      expect(openapi.body.components.securitySchemes.sessionCookie.name).toBe('__Host-sid');
    } finally {
      await secure.close();
    }
  });

  it.each([
    ['strict', /; SameSite=Strict/i],
    ['none', /; SameSite=None/i],
  ])(
    'sets SameSite=%s when SESSION_COOKIE_SAME_SITE says so, and clears the cookie with it',
    async (sameSite, flag) => {
      const secure = await secureApp({ SESSION_COOKIE_SAME_SITE: sameSite });
      try {
        const signup = await signUpOverHttps(secure.app, `same-site-${sameSite}@example.test`);
        expect(sessionCookieOf(signup, '__Host-sid')).toMatch(flag);
        const logout = await overHttps(request(secure.app).post('/api/v1/auth/logout')).set(
          'Cookie',
          cookieValue(sessionCookieOf(signup, '__Host-sid')),
        );
        expect(sessionCookieOf(logout, '__Host-sid')).toMatch(flag);
      } finally {
        await secure.close();
      }
    },
  );
});
