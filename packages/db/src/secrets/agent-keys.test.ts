import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createAgentKeyring, createAgentSecretBox, deriveAgentKey, isSealedWithOtherKey } from './agent-keys.js';
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
