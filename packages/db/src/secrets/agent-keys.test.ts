import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  createAgentKeyring,
  createAgentSecretBox,
  deriveAgentKey,
  derivePoolKey,
  isSealedWithOtherKey,
} from './agent-keys.js';
import { createSecretBox } from './secret-box.js';

const platformKey = randomBytes(32).toString('base64');
const agentA = randomUUID();
const agentB = randomUUID();

describe('agent keys', () => {
  it('differ per agent and per platform key, and are not the platform key', () => {
    const keys = [
      deriveAgentKey(platformKey, agentA),
      deriveAgentKey(platformKey, agentB),
      deriveAgentKey(randomBytes(32).toString('base64'), agentA),
      platformKey,
    ];
    expect(new Set(keys).size).toBe(4);
    expect(deriveAgentKey(platformKey, agentA)).toBe(deriveAgentKey(platformKey, agentA));
  });

  it("open the manager's sealed values for their own agent only", () => {
    const keyring = createAgentKeyring(platformKey);
    const sealed = keyring.boxFor(agentA).seal('s3cret');
    expect(createAgentSecretBox(keyring.keyFor(agentA), agentA).open(sealed)).toBe('s3cret');
    expect(() => createAgentSecretBox(keyring.keyFor(agentB), agentB).open(sealed)).toThrow();
    // The right key under another agent id fails authentication: the agent id is associated data.
    expect(() => createAgentSecretBox(keyring.keyFor(agentA), agentB).open(sealed)).toThrow();
  });

  it('let the manager open values sealed before agent keys, and tell them apart for re-sealing', () => {
    const keyring = createAgentKeyring(platformKey);
    const legacy = createSecretBox(platformKey).seal('old');
    const box = keyring.boxFor(agentA);
    expect(box.open(legacy)).toBe('old');
    expect(isSealedWithOtherKey(legacy, box)).toBe(true);
    expect(isSealedWithOtherKey(box.seal('new'), box)).toBe(false);
    expect(isSealedWithOtherKey('plain', box)).toBe(false);
  });

  it('after a platform key rotation, still open values sealed under the previous one', () => {
    const rotated = randomBytes(32).toString('base64');
    const sealed = createAgentKeyring(platformKey).boxFor(agentA).seal('kept');
    const box = createAgentKeyring(rotated, [platformKey]).boxFor(agentA);
    expect(box.open(sealed)).toBe('kept');
    expect(isSealedWithOtherKey(sealed, box)).toBe(true);
  });
});

describe('the keys of placements', () => {
  it("seal a pooled agent's values for its pool's key, bound to the agent, and for no other key", () => {
    const keyring = createAgentKeyring(platformKey);
    const sealed = keyring.boxForPlacement({ agentId: agentA, pool: 'blue' }).seal('s3cret');
    expect(keyring.poolKeyFor('blue')).toBe(derivePoolKey(platformKey, 'blue'));
    expect(createAgentSecretBox(keyring.poolKeyFor('blue'), agentA).open(sealed)).toBe('s3cret');
    expect(() => createAgentSecretBox(keyring.poolKeyFor('blue'), agentB).open(sealed)).toThrow();
    expect(() => createAgentSecretBox(keyring.poolKeyFor('green'), agentA).open(sealed)).toThrow();
    expect(() => createAgentSecretBox(keyring.keyFor(agentA), agentA).open(sealed)).toThrow();
  });

  it("let the manager open what the agent's other placement sealed, and tell it apart for re-sealing", () => {
    const keyring = createAgentKeyring(platformKey);
    const pooled = keyring.boxForPlacement({ agentId: agentA, pool: 'blue' });
    const dedicated = keyring.boxForPlacement({ agentId: agentA, pool: null });
    const sealedDedicated = dedicated.seal('was dedicated');
    expect(pooled.open(sealedDedicated)).toBe('was dedicated');
    expect(isSealedWithOtherKey(sealedDedicated, pooled)).toBe(true);
    expect(isSealedWithOtherKey(pooled.seal('pooled'), pooled)).toBe(false);
    expect(isSealedWithOtherKey(pooled.seal('pooled'), dedicated)).toBe(true);
    expect(keyring.boxFor(agentA).keyId).toBe(dedicated.keyId);
  });

  it('differ per pool and per platform key, and from every agent key', () => {
    const keys = [
      derivePoolKey(platformKey, 'blue'),
      derivePoolKey(platformKey, 'green'),
      derivePoolKey(randomBytes(32).toString('base64'), 'blue'),
      deriveAgentKey(platformKey, agentA),
    ];
    expect(new Set(keys).size).toBe(4);
  });
});
