// The engine's credentials in its environment: DATABASE_URL and AGENT_KEY (ENGINE_POOL_KEY for a pool),
// from the variables or from files named by their *_FILE variables (the Docker/Kubernetes secrets convention,
// which keeps them out of the process environment). The platform's SECRETS_KEY is refused: an engine
// holds its own agent's key, or its pool's, only.
import { readFileSync } from 'node:fs';
import { ConfigError } from '@agentplane/server-kit';

export const GET_ENGINE_CREDENTIALS =
  "get this agent's engine credentials (DATABASE_URL and AGENT_KEY) from the platform operator: " +
  '`agentplane-manager engine-credentials --agent <id>` on the manager host, or, as a platform operator, ' +
  'POST /api/v1/agents/{id}/engine-credentials';

export const GET_POOL_CREDENTIALS =
  "get the pool's credentials (DATABASE_URL and ENGINE_POOL_KEY) from the platform operator: " +
  '`agentplane-manager engine-credentials --pool <name>` on the manager host';

const FROM_FILES = ['DATABASE_URL', 'AGENT_KEY', 'ENGINE_POOL_KEY'] as const;
const PLATFORM_SECRETS = ['SECRETS_KEY', 'SECRETS_KEY_PREVIOUS'] as const;

function invalid(name: string, message: string): ConfigError {
  return new ConfigError(`Invalid environment:\n  ${name}: ${message}`);
}

function readSecretFile(name: string, file: string): string {
  try {
    // Secret files usually end with a newline that is no part of the value.
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw invalid(name, `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** The environment with the credentials filled in from their *_FILE variables. */
export function readCredentialFiles(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const resolved = { ...env };
  for (const name of FROM_FILES) {
    const file = env[`${name}_FILE`];
    if (file === undefined) continue;
    if (env[name] !== undefined) throw invalid(`${name}_FILE`, `set it or ${name}, not both`);
    resolved[name] = readSecretFile(`${name}_FILE`, file);
  }
  return resolved;
}

/** An engine configured the old way, with the platform key, stops at once and says what to do instead. */
export function refusePlatformSecrets(env: Record<string, string | undefined>): void {
  const given = PLATFORM_SECRETS.filter((name) => env[name] !== undefined);
  if (given.length === 0) return;
  throw invalid(
    given.join(', '),
    `engines no longer take the platform key, which must stay with the manager; remove it and ${GET_ENGINE_CREDENTIALS}`,
  );
}
