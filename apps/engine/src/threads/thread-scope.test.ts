import { describe, expect, it } from '@jest/globals';
import { callerOf, scopedThreadId } from './thread-scope.js';

const AGENT_A = '6f1c1f7e-4a53-4d3a-9b55-2f8c2f0f4a10';
const AGENT_B = '0b8e2b55-1d9c-4f8a-a7d6-7f0b1c2d3e4f';
const ALICE = { issuer: 'https://id.example.com', subject: 'alice' };

describe('scopedThreadId', () => {
  it('differs between agents, issuers and subjects for the same client threadId', () => {
    const keys = [
      scopedThreadId(AGENT_A, ALICE, 't-1'),
      scopedThreadId(AGENT_B, ALICE, 't-1'),
      scopedThreadId(AGENT_A, { ...ALICE, issuer: 'https://tenant.example.net' }, 't-1'),
      scopedThreadId(AGENT_A, { ...ALICE, subject: 'bob' }, 't-1'),
      scopedThreadId(AGENT_A, undefined, 't-1'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('encodes every part, so a separator inside an id cannot forge another scope', () => {
    const forged = scopedThreadId(AGENT_A, { issuer: 'https://a', subject: 'b:c' }, 'd');
    const real = scopedThreadId(AGENT_A, { issuer: 'https://a:b', subject: 'c' }, 'd');
    expect(forged).not.toBe(real);
    expect(scopedThreadId(AGENT_A, ALICE, 't:1')).toBe(`${AGENT_A}:https%3A%2F%2Fid.example.com:alice:t%3A1`);
  });
});

describe('callerOf', () => {
  it("reads a verified token's issuer and subject, and nothing without a token", () => {
    expect(callerOf({ iss: 'https://id.example.com', sub: 'alice', aud: 'x' })).toEqual(ALICE);
    expect(callerOf(undefined)).toBeUndefined();
  });
});
