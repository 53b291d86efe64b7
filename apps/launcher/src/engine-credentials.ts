// The demo engine runs as the platform's engines should: with its own agent's credentials, asked of the
// manager's API on every start (which rotates the role's password), handed over as files
// (DATABASE_URL_FILE, AGENT_KEY_FILE), and never with the platform's DATABASE_URL or SECRETS_KEY.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { localDataDir } from '@agentplane/db/embedded';
import type { ManagerClient } from '@agentplane/manager-client';

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

/** Issues the agent's engine credentials and writes them to files readable by this user only. */
export async function engineCredentialFiles(
  api: ManagerClient,
  agentId: string,
): Promise<{ AGENT_ID: string; DATABASE_URL_FILE: string; AGENT_KEY_FILE: string }> {
  const credentials = await api.issueEngineCredentials(agentId);
  const dir = path.join(localDataDir(), 'engine');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const databaseUrlFile = path.join(dir, 'database-url');
  const agentKeyFile = path.join(dir, 'agent-key');
  await writeFile(databaseUrlFile, `${credentials.database_url}\n`, { mode: 0o600 });
  await writeFile(agentKeyFile, `${credentials.agent_key}\n`, { mode: 0o600 });
  return { AGENT_ID: credentials.agent_id, DATABASE_URL_FILE: databaseUrlFile, AGENT_KEY_FILE: agentKeyFile };
}
