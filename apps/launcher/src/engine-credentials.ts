// The local pool engine runs as the platform's engines should: with its pool's own credentials, issued
// by the manager's CLI on every start (which rotates the role's password), handed over as files
// (DATABASE_URL_FILE, ENGINE_POOL_KEY_FILE), and never with the platform's DATABASE_URL or SECRETS_KEY.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TPoolCredentials } from '@agentplane/contracts';
import { localDataDir } from '@agentplane/db/embedded';

/** What only the manager may hold; an engine started with any of these refuses to run (or should). */
const PLATFORM_ONLY = [
  'DATABASE_URL',
  'SECRETS_KEY',
  'SECRETS_KEY_PREVIOUS',
  'SESSION_SECRET',
  'SESSION_SECRET_PREVIOUS',
] as const;

export function withoutPlatformSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept = { ...env };
  for (const name of PLATFORM_ONLY) delete kept[name];
  return kept;
}

/** Writes the pool's credentials to files readable by this user only, and returns the engine's variables. */
export async function poolCredentialFiles(
  credentials: TPoolCredentials,
): Promise<{ ENGINE_POOL: string; DATABASE_URL_FILE: string; ENGINE_POOL_KEY_FILE: string }> {
  const dir = path.join(localDataDir(), 'engine');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const databaseUrlFile = path.join(dir, 'database-url');
  const poolKeyFile = path.join(dir, 'pool-key');
  await writeFile(databaseUrlFile, `${credentials.database_url}\n`, { mode: 0o600 });
  await writeFile(poolKeyFile, `${credentials.pool_key}\n`, { mode: 0o600 });
  // Older starts ran a dedicated engine on the demo agent's own key: nothing reads it any more.
  await rm(path.join(dir, 'agent-key'), { force: true });
  return { ENGINE_POOL: credentials.pool, DATABASE_URL_FILE: databaseUrlFile, ENGINE_POOL_KEY_FILE: poolKeyFile };
}
