import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { TEngineCredentials } from '@agentplane/contracts';
import { findFreePort } from '@agentplane/db/embedded';
import type { ManagerClient } from '@agentplane/manager-client';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { issueEngineCredentials } from './platform-operator.js';
import { type Service, startService } from './service-process.js';

export const ENGINE_ENTRY = fileURLToPath(new URL('../../apps/engine/dist/server.js', import.meta.url));

/** An agent on the mock model, which answers at once with what it was told. */
export const MOCK_AGENT = {
  name: 'runs bench',
  framework: 'LLM',
  agent: { model: { provider: 'mock', name: 'echo' } },
};

/** The headers of a run of the agent, with a token the manager minted for it (aud = the agent id). */
export async function runHeaders(client: ManagerClient, agentId: string): Promise<Record<string, string>> {
  const { access_token: token } = await client.expect<{ access_token: string }>(
    201,
    'POST',
    `/agents/${agentId}/token`,
  );
  return { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' };
}

/** A new agent of `body`, the headers of a run with a token for it, and credentials for its engines. */
export async function createRunnableAgent(client: ManagerClient, body: Record<string, unknown>) {
  const { id } = await client.expect<{ id: string }>(201, 'POST', '/agents/', body);
  return { id, headers: await runHeaders(client, id), credentials: await issueEngineCredentials(id) };
}

/** An agent, a token to run it, and an engine of its own (benchmarks 4 and 11). */
export async function startAgentEngine(client: ManagerClient, managerUrl: string, body: Record<string, unknown>) {
  const agent = await createRunnableAgent(client, body);
  const engine = await startEngine({ credentials: agent.credentials, managerIssuer: managerUrl });
  return { agentId: agent.id, engine, headers: agent.headers };
}

/** An engine process for one agent, with that agent's own credentials, trusting the manager's tokens. */
export function startEngine(options: {
  credentials: TEngineCredentials;
  managerIssuer: string;
  env?: NodeJS.ProcessEnv;
}): Promise<Service> {
  const { credentials } = options;
  return startEngineProcess(
    { AGENT_ID: credentials.agent_id, DATABASE_URL: credentials.database_url, AGENT_KEY: credentials.agent_key },
    options,
  );
}

/** A pool's credentials, as an engine takes them from its environment. */
export type PoolCredentials = { ENGINE_POOL: string; DATABASE_URL: string; ENGINE_POOL_KEY: string };

/** An engine process serving the agents placed on a pool, under /agents/{id}, trusting the manager's tokens. */
export function startPoolEngine(options: {
  credentials: PoolCredentials;
  managerIssuer: string;
  env?: NodeJS.ProcessEnv;
  /** A port held for it (its URL was given out before it started); a free one otherwise. */
  port?: number;
}): Promise<Service> {
  return startEngineProcess(options.credentials, options);
}

async function startEngineProcess(
  placement: NodeJS.ProcessEnv,
  options: { managerIssuer: string; env?: NodeJS.ProcessEnv; port?: number },
): Promise<Service> {
  return startService(
    ENGINE_ENTRY,
    {
      // Benchmark 4's model is a local server.
      ENGINE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      LOG_LEVEL: 'warn',
      ...placement,
      ENGINE_MANAGER_ISSUER: options.managerIssuer,
      ...options.env,
    },
    '/health',
    options.port ?? (await findFreePort()),
  );
}

/** Peak resident memory of a process so far (Linux VmHWM), in MiB. */
export async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(status.match(/VmHWM:\s+(\d+) kB/)?.[1] ?? Number.NaN);
  return kib / 1024;
}

export async function currentRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(status.match(/VmRSS:\s+(\d+) kB/)?.[1] ?? Number.NaN) / 1024;
}

/** CPU time a process has used so far, user and system, in seconds (Linux /proc/<pid>/stat). */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks / CLOCK_TICKS_PER_SECOND;
}

// USER_HZ, which Linux fixes at 100 for /proc whatever the kernel's own tick rate.
const CLOCK_TICKS_PER_SECOND = 100;
