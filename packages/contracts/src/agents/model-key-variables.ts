// MODEL_API_KEY_ENVS: the environment variables an LLM agent's `apiKeyEnv` may name, parsed the same
// way by the manager (422 for any other name) and by each engine (which will not read any other).
import { z } from 'zod';
import { ENV_VARIABLE_NAME } from '../mcp-servers/launch-variables.js';

/**
 * The platform's own credentials, which no operator setting can hand to a tenant: the database
 * (DATABASE_URL and libpq's PG* variables), the sealing and session keys, the engine's own settings
 * and credentials (ENGINE_*, AGENT_*), and OPENAI_API_KEY, which only ever goes to OPENAI_BASE_URL.
 */
const PLATFORM_VARIABLE =
  /^(?:DATABASE_|TEST_DATABASE_|BENCH_DATABASE_|PG|SECRETS_KEY|SESSION_SECRET|ENGINE_|AGENT_|OPENAI_)/;

/** Why a name may not be listed in MODEL_API_KEY_ENVS, or undefined when it may. */
function describeRefusedKeyVariable(name: string): string | undefined {
  if (!ENV_VARIABLE_NAME.test(name)) return `"${name}" is not an environment variable name`;
  if (PLATFORM_VARIABLE.test(name.toUpperCase())) {
    return `${name} is one of the platform's own settings or credentials and can never be named by an agent`;
  }
  return undefined;
}

/** The setting's text: a comma-separated list of variable names, empty when unset. */
export const ZModelApiKeyEnvsSetting = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  )
  .superRefine((names, ctx) => {
    for (const name of names) {
      const refused = describeRefusedKeyVariable(name);
      if (refused !== undefined) ctx.addIssue({ code: 'custom', message: refused });
    }
  });

/** True when an agent's `apiKeyEnv` is one the operator listed. */
export function isModelKeyVariableAllowed(name: string, allowed: readonly string[]): boolean {
  return allowed.includes(name) && describeRefusedKeyVariable(name) === undefined;
}
