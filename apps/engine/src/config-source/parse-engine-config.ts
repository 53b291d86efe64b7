// Turns a stored or hand-written engine_config into a validated one with its secrets opened.
import { formatZodIssues, mapEngineConfigSecrets, type TEngineConfig, ZEngineConfig } from '@agentplane/contracts';
import { createAgentSecretBox, isSealed } from '@agentplane/db/secrets';

export type SecretOpener = (value: string) => string;

/** A config that must not be applied; its message says why, for the log. */
export class EngineConfigError extends Error {
  override name = 'EngineConfigError';
}

/**
 * Opens `enc:v1:` values with the agent's key (AGENT_KEY), bound to its id: a value sealed for another
 * agent does not open. Plaintext passes through, so config files need no key.
 */
export function createSecretOpener(agent: { agentKey: string; agentId: string } | undefined): SecretOpener {
  const box = agent === undefined ? undefined : createAgentSecretBox(agent.agentKey, agent.agentId);
  return (value) => {
    if (!isSealed(value)) return value;
    if (box === undefined) {
      throw new EngineConfigError(
        "The config holds sealed secrets, which only an engine in database mode opens, with its agent's AGENT_KEY",
      );
    }
    try {
      return box.open(value);
    } catch (error) {
      throw new EngineConfigError(`A secret could not be decrypted: ${(error as Error).message}`);
    }
  };
}

function validate(raw: unknown): TEngineConfig {
  const result = ZEngineConfig.safeParse(raw);
  if (result.success) return result.data;
  const lines = formatZodIssues(result.error).map(({ path, message }) => `${path || '(config)'}: ${message}`);
  throw new EngineConfigError(`The config is invalid: ${lines.join('; ')}`);
}

/**
 * Validates first (which also fills defaults, so every secret field exists), opens the secrets, then
 * validates again: a decrypted value must meet the same rules as the one the manager accepted.
 */
export function parseEngineConfig(raw: unknown, openSecret: SecretOpener): TEngineConfig {
  return validate(mapEngineConfigSecrets(validate(raw), openSecret));
}
