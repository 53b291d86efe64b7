// Per-agent sealing keys. The secrets in an agent's engine_configs row are sealed with a key derived
// from the platform SECRETS_KEY by HKDF over the platform key's id and the agent id, with the agent id
// as associated data. An engine is given its agent's key only: it opens its own config and no other,
// and never holds SECRETS_KEY. Rotating SECRETS_KEY changes every agent key.
import { hkdfSync } from 'node:crypto';
import { createSecretBox, keyIdOf, parseSecretKey, type SecretBox, sealedKeyId } from './secret-box.js';

const INFO_PREFIX = 'agentplane engine-config v1';

/** The agent's key (base64, as AGENT_KEY takes it) under one platform key. */
export function deriveAgentKey(platformKey: string, agentId: string): string {
  const key = parseSecretKey(platformKey);
  const info = `${INFO_PREFIX}:${keyIdOf(key)}:${agentId}`;
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32)).toString('base64');
}

/**
 * A pool's key (base64, as ENGINE_POOL_KEY takes it) under one platform key. The configs of the agents
 * placed on the pool are sealed with it, each still bound to its agent id as associated data: the pool
 * opens its agents' configs and no others, and an agent moved off it is re-sealed with its new key.
 */
export function derivePoolKey(platformKey: string, pool: string): string {
  const key = parseSecretKey(platformKey);
  const info = `agentplane engine-pool v1:${keyIdOf(key)}:${pool}`;
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), info, 32)).toString('base64');
}

/** What an engine uses: seals and opens with its agent key, bound to its agent id. */
export function createAgentSecretBox(agentKey: string, agentId: string): SecretBox {
  return createSecretBox(agentKey, [], { associatedData: agentId });
}

export type AgentKeyring = {
  /** The agent's current key, handed to its engine with its credentials. */
  keyFor: (agentId: string) => string;
  /**
   * Seals with the agent's current key. Opens values sealed with it or with the agent key under a
   * previous platform key, and values sealed with the platform key itself (before agent keys existed),
   * which the upgrade re-seals.
   */
  boxFor: (agentId: string) => SecretBox;
};

/** The manager's side: every agent's key, derived from the platform keys on demand. */
export function createAgentKeyring(currentKey: string, previousKeys: string[] = []): AgentKeyring {
  const platform = createSecretBox(currentKey, previousKeys);
  const platformKeyIds = new Set([currentKey, ...previousKeys].map((key) => keyIdOf(parseSecretKey(key))));
  const keyFor = (agentId: string) => deriveAgentKey(currentKey, agentId);
  return {
    keyFor,
    boxFor: (agentId) => {
      const box = createSecretBox(
        keyFor(agentId),
        previousKeys.map((key) => deriveAgentKey(key, agentId)),
        { associatedData: agentId },
      );
      return {
        keyId: box.keyId,
        seal: box.seal,
        open: (value) => {
          const id = sealedKeyId(value);
          return id !== undefined && platformKeyIds.has(id) ? platform.open(value) : box.open(value);
        },
      };
    },
  };
}

/** True when a sealed value was not sealed by `box`'s current key (a legacy or rotated value). */
export function isSealedWithOtherKey(value: string, box: SecretBox): boolean {
  const id = sealedKeyId(value);
  return id !== undefined && id !== box.keyId;
}
