import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const KEY_FILE = fileURLToPath(new URL('../../../.data/secrets-key', import.meta.url));

/**
 * The local platform's SECRETS_KEY: made once and kept in .data/ (readable by this user only), so that
 * secrets sealed before a restart still open after it. An explicit SECRETS_KEY wins.
 */
export async function localSecretsKey(): Promise<string> {
  if (process.env.SECRETS_KEY) return process.env.SECRETS_KEY;
  await mkdir(path.dirname(KEY_FILE), { recursive: true });
  try {
    await writeFile(KEY_FILE, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Made by an earlier start (or a concurrent one): keep it.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return (await readFile(KEY_FILE, 'utf8')).trim();
}
