// Engine credentials are the operator's, never a tenant's: the launcher (and the cross-service tests) get
// them as an operator does, with `agentplane-manager engine-credentials` run on the manager's environment,
// not through the API.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import {
  type TEngineCredentials,
  type TPoolCredentials,
  ZEngineCredentials,
  ZPoolCredentials,
} from '@agentplane/contracts';

const MANAGER_CLI = fileURLToPath(new URL('../../manager/dist/cli/main.js', import.meta.url));

/** Runs `agentplane-manager <args>` and resolves with its stdout; a failure says what it wrote on stderr. */
async function runManagerCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [MANAGER_CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  // Only stderr is told: stdout holds credentials.
  if (code !== 0) throw new Error(`agentplane-manager ${args[0]} failed: ${stderr.trim() || `exit code ${code}`}`);
  return stdout;
}

/** The credentials of a pool's engines; `managerEnv` must list the pool in ENGINE_POOLS. Rotates its password. */
export async function issuePoolCredentials(managerEnv: NodeJS.ProcessEnv, pool: string): Promise<TPoolCredentials> {
  const printed = await runManagerCli(['engine-credentials', '--pool', pool, '--json'], managerEnv);
  return ZPoolCredentials.parse(JSON.parse(printed));
}

/** The credentials of a dedicated agent's engine. Rotates its role's password. */
export async function issueAgentEngineCredentials(
  managerEnv: NodeJS.ProcessEnv,
  agentId: string,
): Promise<TEngineCredentials> {
  const printed = await runManagerCli(['engine-credentials', '--agent', agentId, '--json'], managerEnv);
  return ZEngineCredentials.parse(JSON.parse(printed));
}
