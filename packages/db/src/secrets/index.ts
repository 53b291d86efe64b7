export {
  type AgentKeyring,
  type AgentPlacement,
  createAgentKeyring,
  createAgentSecretBox,
  deriveAgentKey,
  derivePoolKey,
  isSealedWithOtherKey,
} from './agent-keys.js';
export {
  createSecretBox,
  isSealed,
  isSecretKey,
  parseSecretKey,
  type SecretBox,
  SecretKeyError,
} from './secret-box.js';
