// Which stdio MCP servers this engine may spawn. The manager refuses other command lines at write time;
// the engine checks again from its own environment, so a config written around the manager spawns nothing.
import {
  describeRefusedEnvName,
  isStdioCommandAllowed,
  type TMcpServerConfig,
  type TStdioCommandRule,
} from '@agentplane/contracts';
import { realpathInside } from '../paths/realpath-inside.js';

export type StdioPolicy = {
  /** MCP_STDIO_COMMANDS: the permitted command lines; none by default. */
  commands: readonly TStdioCommandRule[];
  /** MCP_STDIO_CWD_ROOT: where a server's cwd may be; without it a cwd is refused. */
  cwdRoot: string | undefined;
};

/** What may be spawned: the server's own command line, in the working directory resolved here. */
export type StdioLaunch = { command: string; args: string[]; env: Record<string, string>; cwd: string | undefined };

/** The reason a stdio server is not spawned; shown as its status in /health. */
export class StdioLaunchRefused extends Error {
  override name = 'StdioLaunchRefused';
}

export async function checkStdioLaunch(server: TMcpServerConfig, policy: StdioPolicy): Promise<StdioLaunch> {
  const { command, args, env, cwd } = server;
  if (command === undefined || !isStdioCommandAllowed({ command, args }, policy.commands)) {
    throw new StdioLaunchRefused('Not spawned: the command line is not permitted by MCP_STDIO_COMMANDS');
  }
  // The contract refuses these too; checked here as well because this is the last step before exec.
  const loader = Object.keys(env).find((name) => describeRefusedEnvName(name) !== undefined);
  if (loader !== undefined) {
    throw new StdioLaunchRefused(`Not spawned: env ${loader} may not be set for a stdio server`);
  }
  if (cwd === undefined) return { command, args, env, cwd: undefined };
  if (policy.cwdRoot === undefined) {
    throw new StdioLaunchRefused('Not spawned: a cwd is not allowed (MCP_STDIO_CWD_ROOT is not set)');
  }
  const resolved = await realpathInside(policy.cwdRoot, cwd);
  if (resolved.status !== 'inside') {
    throw new StdioLaunchRefused('Not spawned: cwd is not an existing directory inside MCP_STDIO_CWD_ROOT');
  }
  return { command, args, env, cwd: resolved.path };
}
