import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { localDataDir } from '@agentplane/db/embedded';

/**
 * A secret of the local platform (SECRETS_KEY, SESSION_SECRET): made once and kept in the data
 * directory, readable by this user only, so that a restart can still open what was sealed and keep
 * everyone signed in. An explicit environment variable wins.
 */
export async function localSecret(name: 'SECRETS_KEY' | 'SESSION_SECRET'): Promise<string> {
  const explicit = process.env[name];
  if (explicit) return explicit;
  const file = path.join(localDataDir(), name.toLowerCase().replace('_', '-'));
  await mkdir(path.dirname(file), { recursive: true });
  try {
    await writeFile(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Made by an earlier start: keep it.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return (await readFile(file, 'utf8')).trim();
}
