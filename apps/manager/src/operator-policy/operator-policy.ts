// What the operator lets tenants make an engine execute or read, checked at write time so a tenant
// learns at once (422 naming the setting). Each engine enforces the same settings from its own env.
import path from 'node:path';
import {
  isModelKeyVariableAllowed,
  isStdioCommandAllowed,
  type TAgentCreate,
  type TMcpServerConfig,
  type TStdioCommandRule,
} from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';

export type OperatorPolicy = {
  /** MCP_STDIO_COMMANDS: the stdio command lines tenants may run; none by default. */
  stdioCommands: readonly TStdioCommandRule[];
  /** MCP_STDIO_CWD_ROOT: where a stdio server's cwd may be; without it a cwd is refused. */
  stdioCwdRoot: string | undefined;
  /** MODEL_API_KEY_ENVS: the variables an agent's `apiKeyEnv` may name; none by default. */
  modelApiKeyEnvs: readonly string[];
};

function refuse(setting: string, path: string, message: string): AppError {
  return new AppError('validation_failed', `The operator's ${setting} setting does not allow this.`, {
    errors: [{ path, message }],
  });
}

function isInside(root: string, target: string): boolean {
  const relative = path.relative(path.resolve(root), path.resolve(target));
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** Refuses a stdio server whose command line or cwd the operator has not permitted. */
export function checkMcpServerAllowed(server: TMcpServerConfig, policy: OperatorPolicy): void {
  if (server.transport !== 'stdio') return;
  const { command = '', args, cwd } = server;
  if (!isStdioCommandAllowed({ command, args }, policy.stdioCommands)) {
    throw refuse(
      'MCP_STDIO_COMMANDS',
      'mcp_server.command',
      'This command line (command and args) is not one the operator permits in MCP_STDIO_COMMANDS',
    );
  }
  if (cwd === undefined) return;
  if (policy.stdioCwdRoot === undefined) {
    throw refuse('MCP_STDIO_CWD_ROOT', 'mcp_server.cwd', 'A cwd is not allowed: MCP_STDIO_CWD_ROOT is not set');
  }
  // Lexical here; the engine resolves symlinks with realpath before it spawns.
  if (!isInside(policy.stdioCwdRoot, cwd)) {
    throw refuse('MCP_STDIO_CWD_ROOT', 'mcp_server.cwd', 'cwd must be inside the directory MCP_STDIO_CWD_ROOT names');
  }
}

/** Refuses an LLM agent whose `apiKeyEnv` names a variable the operator has not listed. */
export function checkAgentAllowed(body: TAgentCreate, policy: OperatorPolicy): void {
  if (body.framework !== 'LLM') return;
  const { apiKeyEnv } = body.agent.model;
  if (apiKeyEnv !== undefined && !isModelKeyVariableAllowed(apiKeyEnv, policy.modelApiKeyEnvs)) {
    throw refuse(
      'MODEL_API_KEY_ENVS',
      'agent.model.apiKeyEnv',
      `${apiKeyEnv} is not listed in MODEL_API_KEY_ENVS; set model.apiKey to give the agent its own key`,
    );
  }
}
