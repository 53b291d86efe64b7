import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  expectProblemShape,
  type ManagerTestContext,
  signUpUser,
  startManagerTestApp,
} from '../testing/manager-test-app.js';
import { type AttemptSubject, backoffKey } from './failure-backoff.js';

// Long enough that no window or wait ends by itself while a test runs, however slow the machine.
const WINDOW_MS = 10 * 60 * 1000;
const BACKOFF_BASE_MS = 60_000;
const BACKOFF_MAX_MS = 4 * BACKOFF_BASE_MS;
const PER_IP = 20;
let nextAddress = 1;

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp({
    AUTH_RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
    AUTH_RATE_LIMIT_PER_IP: String(PER_IP),
    AUTH_FAILURES_BEFORE_BACKOFF: '3',
    AUTH_BACKOFF_BASE_MS: String(BACKOFF_BASE_MS),
    AUTH_BACKOFF_MAX_MS: String(BACKOFF_MAX_MS),
    // Each test calls from addresses of its own, so no test inherits another's counters.
    TRUST_PROXY: 'loopback',
  });
});
afterAll(() => ctx?.close());

/** A caller at an address no other test uses. */
const client = () => {
  const address = `203.0.113.${nextAddress++}`;
  const post = (path: string, body: object) =>
    request(ctx.app).post(`/api/v1/auth/${path}`).set('X-Forwarded-For', address).send(body);
  return {
    address,
    login: (body: object) => post('login', body),
    signup: (body: object) => post('signup', body),
  };
};

const counters = () => ctx.database.prisma.rateLimitCounter;

/** Moves the end of a backoff into the past, as the clock would. */
const endWaitOf = (subject: AttemptSubject) =>
  counters().update({ where: { key: backoffKey(subject) }, data: { blockedUntil: new Date(Date.now() - 1000) } });

const retryAfterOf = (response: request.Response) => Number(response.headers['retry-after']);

describe('failed sign-ins', () => {
  it('back off per email and address: five wrong passwords hold up the attacker, not the user elsewhere', async () => {
    const user = await signUpUser(ctx.app);
    const attacker = client();
    const statuses: number[] = [];
    for (let failure = 0; failure < 5; failure++) {
      statuses.push((await attacker.login({ email: user.email, password: 'wrong password' })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const waiting = await attacker.login({ email: user.email, password: user.password });
    expectProblemShape(waiting, 429);
    expect(retryAfterOf(waiting)).toBeGreaterThan(BACKOFF_BASE_MS / 1000 - 60);
    expect(retryAfterOf(waiting)).toBeLessThanOrEqual(BACKOFF_BASE_MS / 1000);

    expect((await client().login({ email: user.email, password: user.password })).status).toBe(200);
    // And the attacker's other targets are not waiting on this one.
    const other = await signUpUser(ctx.app);
    expect((await attacker.login({ email: other.email, password: other.password })).status).toBe(200);
  });

  it('wait twice as long after each further failure, up to the cap, and start afresh after a success', async () => {
    const user = await signUpUser(ctx.app);
    const caller = client();
    const subject = { action: 'login', account: user.email, ip: caller.address } as const;
    for (let failure = 0; failure < 3; failure++) await caller.login({ email: user.email, password: 'wrong' });

    const waits: number[] = [];
    for (let further = 0; further < 4; further++) {
      await endWaitOf(subject);
      expectProblemShape(await caller.login({ email: user.email, password: 'wrong' }), 401);
      const refused = await caller.login({ email: user.email, password: user.password });
      expectProblemShape(refused, 429);
      waits.push(retryAfterOf(refused));
    }
    // 2, 4, then capped at 4 base waits; each within the minute a slow run may take.
    const bases = waits.map((seconds) => Math.round(seconds / (BACKOFF_BASE_MS / 1000)));
    expect(bases).toEqual([2, 4, 4, 4]);

    await endWaitOf(subject);
    expect((await caller.login({ email: user.email, password: user.password })).status).toBe(200);
    expect(await counters().count({ where: { key: backoffKey(subject) } })).toBe(0);
    expectProblemShape(await caller.login({ email: user.email, password: 'wrong' }), 401);
    expectProblemShape(await caller.login({ email: user.email, password: 'wrong' }), 401);
  });

  it('count attempts that race each other: of many at once, only the allowed number get through', async () => {
    const user = await signUpUser(ctx.app);
    const caller = client();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => caller.login({ email: user.email, password: 'wrong password' })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([401, 401, 401, 429, 429, 429]);
  });

  it('keep only a hash of the email in the database', async () => {
    const caller = client();
    await caller.login({ email: 'Shared@Example.test', password: 'x' });
    const keys = (await counters().findMany({ select: { key: true } })).map(({ key }) => key);
    expect(keys.filter((key) => key.toLowerCase().includes('shared@'))).toEqual([]);
    const key = backoffKey({ action: 'login', account: 'shared@example.test', ip: caller.address });
    expect((await counters().findUniqueOrThrow({ where: { key } })).hits).toBe(1);
  });
});

describe('sign-ups with an email in use', () => {
  it('answer 409, and back off per email and address like sign-ins', async () => {
    const user = await signUpUser(ctx.app);
    const prober = client();
    for (let attempt = 0; attempt < 3; attempt++) {
      expectProblemShape(await prober.signup({ email: user.email, password: 'long enough' }), 409);
    }
    expectProblemShape(await prober.signup({ email: user.email, password: 'long enough' }), 429);
    // A new email from the same address, and the same email from another, are not held up.
    expect((await prober.signup({ email: `new-${randomUUID()}@example.test`, password: 'long enough' })).status).toBe(
      201,
    );
    expectProblemShape(await client().signup({ email: user.email, password: 'long enough' }), 409);
  });
});

describe('password changes with a wrong current password', () => {
  it('back off per user and address like sign-ins', async () => {
    const user = await signUpUser(ctx.app);
    const from = (address: string, current: string) =>
      user.agent
        .post('/api/v1/auth/password')
        .set('X-Forwarded-For', address)
        .send({ current_password: current, new_password: 'the next passphrase' });
    const { address } = client();
    for (let failure = 0; failure < 3; failure++) expectProblemShape(await from(address, 'guess'), 403);
    expectProblemShape(await from(address, user.password), 429);
    expect((await from(client().address, user.password)).status).toBe(204);
  });
});

describe('the per-address limit', () => {
  it('limits every attempt from one address, across emails, and no other address', async () => {
    const sprayer = client();
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= PER_IP; attempt++) {
      const response = await sprayer.login({ email: `spray-${randomUUID()}@example.test`, password: 'whatever' });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array(PER_IP).fill(401), 429]);

    const user = await signUpUser(ctx.app);
    expect((await client().login({ email: user.email, password: user.password })).status).toBe(200);
    await counters().update({
      where: { key: `auth-ip:${sprayer.address}` },
      data: { resetAt: new Date(Date.now() - 1000) },
    });
    expect((await sprayer.login({ email: user.email, password: user.password })).status).toBe(200);
  });

  it('counts sign-ups and malformed bodies too', async () => {
    const caller = client();
    for (let attempt = 0; attempt < PER_IP; attempt++) await caller.signup({ email: 'not an email', password: 'x' });
    expectProblemShape(
      await caller.signup({ email: `late-${randomUUID()}@example.test`, password: 'long enough' }),
      429,
    );
  });
});
