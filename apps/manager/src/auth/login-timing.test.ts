// An unknown email must cost what a wrong password costs, or the sign-in time tells which emails
// have accounts. Timing medians flake on a loaded machine; what makes the two equal is that both run
// one argon2 verification against a hash of the same parameters, and that is what this checks.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { ManagerTestContext } from '../testing/manager-test-app.js';

const argon2 = await import('@node-rs/argon2');
const verifiedHashes: string[] = [];
// The real argon2, only watched: every verification still runs.
jest.unstable_mockModule('@node-rs/argon2', () => ({
  ...argon2,
  verify: (...args: Parameters<typeof argon2.verify>) => {
    verifiedHashes.push(String(args[0]));
    return argon2.verify(...args);
  },
}));
const { signUpUser, startManagerTestApp } = await import('../testing/manager-test-app.js');

let ctx: ManagerTestContext;
beforeAll(async () => {
  ctx = await startManagerTestApp();
});
afterAll(() => ctx?.close());

/** The argon2 parameters of a PHC string, without its salt and hash. */
const parametersOf = (phc: string) => phc.split('$').slice(1, 4).join('$');

const verificationsDuring = async (login: () => Promise<unknown>) => {
  verifiedHashes.length = 0;
  await login();
  return [...verifiedHashes];
};

describe('sign-in with an unknown email', () => {
  it('verifies the password against a hash of the same argon2 parameters as a wrong password does', async () => {
    const user = await signUpUser(ctx.app);
    const { default: request } = await import('supertest');
    const login = (email: string) => () =>
      request(ctx.app).post('/api/v1/auth/login').send({ email, password: 'not the password' });

    const wrongPassword = await verificationsDuring(login(user.email));
    const unknownEmail = await verificationsDuring(login('nobody@example.test'));

    expect(wrongPassword).toHaveLength(1);
    expect(unknownEmail).toHaveLength(1);
    expect(parametersOf(unknownEmail[0] as string)).toMatch(/^argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
    expect(parametersOf(unknownEmail[0] as string)).toBe(parametersOf(wrongPassword[0] as string));
    expect(unknownEmail[0]).not.toBe(wrongPassword[0]);
  });
});
