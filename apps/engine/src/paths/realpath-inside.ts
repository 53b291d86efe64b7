// Keeps a path the tenant chose only if, with every symlink followed, it lands inside a directory the
// operator chose: a lexical check alone is fooled by a symlink that points out.
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** The part of `target` below `root` (both real paths), or undefined when it is not below it. */
function relativeInside(root: string, target: string): string | undefined {
  const relative = path.relative(root, target);
  const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  return outside ? undefined : relative;
}

export type RealpathInside =
  | { status: 'inside'; path: string; relative: string }
  | { status: 'missing' }
  | { status: 'outside' };

/** Follows every symlink of `target` and of `root`, then says whether the one lies inside the other. */
export async function realpathInside(root: string, target: string): Promise<RealpathInside> {
  const [realRoot, realTarget] = await Promise.all([
    realpath(root).catch(() => undefined),
    realpath(target).catch(() => undefined),
  ]);
  if (realRoot === undefined || realTarget === undefined) return { status: 'missing' };
  const relative = relativeInside(realRoot, realTarget);
  return relative === undefined ? { status: 'outside' } : { status: 'inside', path: realTarget, relative };
}
