// Loads the operator's code named by `path/to/module.js:exportName`: a relative path resolved with
// realpath inside the agents directory and never into node_modules (the tenant names the path, the
// operator decides what is there), imported fresh for each config version so a fixed file is picked
// up without a restart, and every failure classified for /health and 503s.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { realpathInside } from '../../paths/realpath-inside.js';

export type AgentLoadErrorCode = 'path_escape' | 'missing_file' | 'load_failed' | 'missing_export' | 'wrong_type';

/** Why the agent's module cannot run; safe to show in /health and in a 503 (no stack, no file contents). */
export class AgentLoadError extends Error {
  override name = 'AgentLoadError';
  constructor(
    readonly code: AgentLoadErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export type ModuleReference = { file: string; exportName: string };

/**
 * Splits `path.js:export` at its last colon and resolves the path with every symlink followed; refuses
 * an absolute path, one that lands outside `agentsDir`, and one that lands in a node_modules directory.
 */
export async function resolveModuleReference(reference: string, agentsDir: string): Promise<ModuleReference> {
  const colon = reference.lastIndexOf(':');
  const modulePath = reference.slice(0, colon);
  const exportName = reference.slice(colon + 1);
  if (colon <= 0 || exportName === '') {
    throw new AgentLoadError('missing_export', `"${reference}" does not name an export ("path.js:exportName").`);
  }
  if (path.isAbsolute(modulePath)) {
    throw new AgentLoadError('path_escape', `"${modulePath}" is absolute; paths are relative to the agents directory.`);
  }
  const resolved = await realpathInside(agentsDir, path.resolve(agentsDir, modulePath));
  if (resolved.status === 'missing') {
    throw new AgentLoadError('missing_file', `The module ${modulePath} does not exist.`);
  }
  if (resolved.status === 'outside') {
    throw new AgentLoadError('path_escape', `"${modulePath}" leads outside the agents directory.`);
  }
  if (resolved.relative.split(path.sep).includes('node_modules')) {
    throw new AgentLoadError('path_escape', `"${modulePath}" leads into node_modules.`);
  }
  return { file: resolved.path, exportName };
}

/**
 * Imports the module and returns the named export. `version` busts Node's module cache: a new config
 * version imports the file again, so an operator who fixed it only has to publish a new config.
 */
export async function importAgentExport(reference: string, agentsDir: string, version: number): Promise<unknown> {
  const { file, exportName } = await resolveModuleReference(reference, agentsDir);
  const found = await stat(file).catch(() => undefined);
  if (found === undefined || !found.isFile()) {
    throw new AgentLoadError('missing_file', `The module ${file} does not exist.`);
  }
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(`${pathToFileURL(file).href}?v=${version}`)) as Record<string, unknown>;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AgentLoadError('load_failed', `The module ${file} failed to load: ${reason}`);
  }
  if (!(exportName in namespace) || namespace[exportName] === undefined) {
    const available = Object.keys(namespace).join(', ') || 'none';
    throw new AgentLoadError(
      'missing_export',
      `The module ${file} has no export "${exportName}" (exports: ${available}).`,
    );
  }
  return namespace[exportName];
}

/** The type of a value, in words for an error message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no prototype'})`;
  return `a ${typeof value}`;
}
