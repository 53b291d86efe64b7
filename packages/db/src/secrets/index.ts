export {
  type AgentKeyring,
  createAgentKeyring,
  createAgentSecretBox,
  deriveAgentKey,
  isSealedWithOtherKey,
} from './agent-keys.js';
export { createSecretBox, isSealed, parseSecretKey, type SecretBox, SecretKeyError } from './secret-box.js';
