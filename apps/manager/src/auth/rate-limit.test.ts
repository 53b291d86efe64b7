import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';

const WINDOW_MS = 1500;

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('sign-in rate limits', () => {
  let ctx: ManagerTestContext;
  beforeAll(async () => {
    ctx = await startManagerTestApp({
      AUTH_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
      AUTH_RATE_LIMIT_PER_EMAIL: '3',
      AUTH_RATE_LIMIT_PER_IP: '8',
    });
  });
  afterAll(() => ctx.close());

  it('locks an email after repeated failures with 429 and Retry-After, then recovers', async () => {
    const user = await signUpUser(ctx.app);
    const attempt = (password: string) =>
      request(ctx.app).post('/api/v1/auth/login').send({ email: user.email, password });
    for (let failure = 0; failure < 3; failure++) expectProblemShape(await attempt('wrong password'), 401);

    const limited = await attempt(user.password);
    expectProblemShape(limited, 429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    await waitUntil(async () => (await attempt(user.password)).status === 200, WINDOW_MS * 3);
  });

  it('limits every attempt from one address, across emails', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 9; attempt++) {
      const response = await request(ctx.app)
        .post('/api/v1/auth/login')
        .send({ email: `spray-${attempt}@example.test`, password: 'whatever' });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 8).every((status) => status === 401 || status === 429)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 200));
  });

  it('keeps its counters in the database, so that every replica sees them', async () => {
    await request(ctx.app).post('/api/v1/auth/login').send({ email: 'shared@example.test', password: 'x' });
    const counters = await ctx.database.prisma.rateLimitCounter.findMany({ where: { key: { contains: 'shared@' } } });
    expect(counters).toHaveLength(1);
    expect(counters[0]?.hits).toBe(1);
  });
});
