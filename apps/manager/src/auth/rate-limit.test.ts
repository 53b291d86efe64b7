import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';

// Long enough that no window rolls over by itself while a test runs, however slow the machine.
const WINDOW_MS = 10 * 60 * 1000;
let nextAddress = 1;

describe('sign-in rate limits', () => {
  let ctx: ManagerTestContext;
  beforeAll(async () => {
    ctx = await startManagerTestApp({
      AUTH_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      AUTH_RATE_LIMIT_PER_EMAIL: '3',
      AUTH_RATE_LIMIT_PER_IP: '8',
      // Each test signs in from an address of its own, so no test inherits another's per-IP counter.
      TRUST_PROXY: 'loopback',
    });
  });
  afterAll(() => ctx?.close());

  /** A caller at an address no other test uses. */
  const client = () => {
    const address = `203.0.113.${nextAddress++}`;
    const login = (body: object) =>
      request(ctx.app).post('/api/v1/auth/login').set('X-Forwarded-For', address).send(body);
    return { address, login };
  };

  /** Moves a counter's window into the past, as the clock would after WINDOW_MS. */
  const endWindowOf = (key: string) =>
    ctx.database.prisma.rateLimitCounter.update({ where: { key }, data: { resetAt: new Date(Date.now() - 1000) } });

  it('locks an email after repeated failures with 429 and Retry-After, then recovers once its window has passed', async () => {
    const user = await signUpUser(ctx.app);
    const { login } = client();
    for (let failure = 0; failure < 3; failure++) {
      expectProblemShape(await login({ email: user.email, password: 'wrong password' }), 401);
    }

    const limited = await login({ email: user.email, password: user.password });
    expectProblemShape(limited, 429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(WINDOW_MS / 1000 - 60);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expectProblemShape(await login({ email: user.email, password: user.password }), 429);

    await endWindowOf(`auth-email:${user.email}`);
    expect((await login({ email: user.email, password: user.password })).status).toBe(200);
  });

  it('limits every attempt from one address, across emails, and no other address', async () => {
    const sprayer = client();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 9; attempt++) {
      const response = await sprayer.login({ email: `spray-${randomUUID()}@example.test`, password: 'whatever' });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 429]);

    const user = await signUpUser(ctx.app);
    expect((await client().login({ email: user.email, password: user.password })).status).toBe(200);
    await endWindowOf(`auth-ip:${sprayer.address}`);
    expect((await sprayer.login({ email: user.email, password: user.password })).status).toBe(200);
  });

  it('keeps its counters in the database, so that every replica sees them', async () => {
    await client().login({ email: 'shared@example.test', password: 'x' });
    const counters = await ctx.database.prisma.rateLimitCounter.findMany({ where: { key: { contains: 'shared@' } } });
    expect(counters).toHaveLength(1);
    expect(counters[0]?.hits).toBe(1);
  });
});
