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

/** What an engine uses: seals and opens with its agent key (or its pool's key), bound to its agent id. */
export function createAgentSecretBox(agentKey: string, agentId: string): SecretBox {
  return createSecretBox(agentKey, [], { associatedData: agentId });
}

/** Where an agent is served: on a pool engine (its name), or on a dedicated engine of its own (null). */
export type AgentPlacement = { agentId: string; pool: string | null };

export type AgentKeyring = {
  /** The agent's current key, handed to its dedicated engine with its credentials. */
  keyFor: (agentId: string) => string;
  /** The pool's current key, handed to the pool's engines with their credentials. */
  poolKeyFor: (pool: string) => string;
  /** A dedicated agent's box: boxForPlacement({ agentId, pool: null }). */
  boxFor: (agentId: string) => SecretBox;
  /**
   * Seals with the current key of the agent's placement: its pool's key for a pooled agent, its own for
   * a dedicated one, always bound to the agent id. Opens values sealed with either of those keys (also
   * under a previous platform key), and values sealed with the platform key itself (before agent keys
   * existed); whatever its current key did not seal, isSealedWithOtherKey tells apart for re-sealing.
   */
  boxForPlacement: (placement: AgentPlacement) => SecretBox;
};

/** The manager's side: every agent's and pool's key, derived from the platform keys on demand. */
export function createAgentKeyring(currentKey: string, previousKeys: string[] = []): AgentKeyring {
  const platform = createSecretBox(currentKey, previousKeys);
  const platformKeys = [currentKey, ...previousKeys];
  const platformKeyIds = new Set(platformKeys.map((key) => keyIdOf(parseSecretKey(key))));
  const boxForPlacement = ({ agentId, pool }: AgentPlacement): SecretBox => {
    const agentKeys = platformKeys.map((key) => deriveAgentKey(key, agentId));
    const poolKeys = pool === null ? [] : platformKeys.map((key) => derivePoolKey(key, pool));
    const [current, ...others] = [...poolKeys, ...agentKeys] as [string, ...string[]];
    const box = createSecretBox(current, others, { associatedData: agentId });
    return {
      keyId: box.keyId,
      seal: box.seal,
      open: (value) => {
        const id = sealedKeyId(value);
        return id !== undefined && platformKeyIds.has(id) ? platform.open(value) : box.open(value);
      },
    };
  };
  return {
    keyFor: (agentId) => deriveAgentKey(currentKey, agentId),
    poolKeyFor: (pool) => derivePoolKey(currentKey, pool),
    boxFor: (agentId) => boxForPlacement({ agentId, pool: null }),
    boxForPlacement,
  };
}

/** True when a sealed value was not sealed by `box`'s current key (a legacy or rotated value). */
export function isSealedWithOtherKey(value: string, box: SecretBox): boolean {
  const id = sealedKeyId(value);
  return id !== undefined && id !== box.keyId;
}
