// The policy on its own: every refused address fails with EgressRefusedError before a socket is opened
// (a loopback server counts what reached it; the other addresses are never dialled because the check
// runs first, which is what the policy promises), redirects included, and what the operator allows
// is reached.
import { NO_EGRESS_ALLOWED, ZEgressAllowList } from '@agentplane/server-kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { type CountingServer, startCountingServer } from '../testing/counting-server.js';
import { createEgressPolicy, type EgressPolicy, EgressRefusedError } from './egress-policy.js';

let target: CountingServer;
let refusals: EgressRefusedError[];
const policies: EgressPolicy[] = [];

function policyAllowing(allow: string): EgressPolicy {
  const policy = createEgressPolicy({
    allow: allow === '' ? NO_EGRESS_ALLOWED : ZEgressAllowList.parse(allow),
    onRefused: (refusal) => refusals.push(refusal),
  });
  policies.push(policy);
  return policy;
}

async function refusalOf(work: Promise<unknown>): Promise<EgressRefusedError> {
  const error = await work.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(TypeError);
  const cause = (error as Error).cause;
  expect(cause).toBeInstanceOf(EgressRefusedError);
  return cause as EgressRefusedError;
}

beforeAll(async () => {
  target = await startCountingServer();
});

beforeEach(() => {
  refusals = [];
});

afterAll(async () => {
  await Promise.all(policies.map((policy) => policy.close()));
  await target?.close();
});

describe('with nothing allowed', () => {
  const cases: [string, () => string, RegExp, string][] = [
    ['127.0.0.1', () => `${target.origin}/`, /^127\.0\.0\.1$/, 'loopback'],
    [
      'localhost, a name that resolves to loopback',
      () => `http://localhost:${target.port}/`,
      /^(127\.0\.0\.1|::1)$/,
      'loopback',
    ],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${target.port}/`, /^::ffff:7f00:1$/, 'loopback'],
    [
      '169.254.169.254 (cloud metadata)',
      () => 'http://169.254.169.254/latest/meta-data/',
      /^169\.254\.169\.254$/,
      'linkLocal',
    ],
    ['10.0.0.1', () => 'http://10.0.0.1/', /^10\.0\.0\.1$/, 'private'],
    ['[fd00:ec2::254] (cloud metadata over IPv6)', () => 'http://[fd00:ec2::254]/', /^fd00:ec2::254$/, 'uniqueLocal'],
  ];

  it.each(cases)('refuses %s before connecting', async (_name, url, address, range) => {
    const before = target.connections();
    const policy = policyAllowing('');
    const refusal = await refusalOf(policy.fetch(url()));
    expect(refusal.address).toMatch(address);
    expect(refusal.range).toBe(range);
    expect(refusals).toEqual([refusal]);
    expect(target.connections()).toBe(before);
  });

  it('refuses the connection of a WebSocket handshake', async () => {
    const before = target.connections();
    const socket = policyAllowing('').openWebSocket(new URL(`ws://127.0.0.1:${target.port}/`), ['mcp']);
    const failed = new Promise((resolve) => {
      socket.onerror = resolve;
    });
    await failed;
    expect(refusals.map(({ address, range }) => ({ address, range }))).toEqual([
      { address: '127.0.0.1', range: 'loopback' },
    ]);
    expect(target.connections()).toBe(before);
  });
});

describe('redirects', () => {
  let redirector: CountingServer;

  afterAll(() => redirector?.close());

  it.each([
    ['169.254.169.254', 'http://169.254.169.254', 'linkLocal'],
    ['10.0.0.1', 'http://10.0.0.1', 'private'],
  ])('from an allowed server to %s are refused', async (address, location, range) => {
    await redirector?.close();
    redirector = await startCountingServer({ redirectTo: location });
    const refusal = await refusalOf(policyAllowing('127.0.0.1').fetch(`${redirector.origin}/latest/meta-data/`));
    expect({ address: refusal.address, range: refusal.range }).toEqual({ address, range });
    expect(redirector.requests()).toBe(1);
  });
});

describe('what the operator allows', () => {
  it('is reached, by range or by host name', async () => {
    const before = target.connections();
    const byRange = await policyAllowing('127.0.0.0/8').fetch(`${target.origin}/`);
    expect(byRange.status).toBe(404);
    const byName = await policyAllowing('localhost').fetch(`http://localhost:${target.port}/`);
    expect(byName.status).toBe(404);
    expect(target.connections()).toBeGreaterThan(before);
    expect(refusals).toEqual([]);
  });
});
