import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { TEngineCredentials } from '@agentplane/contracts';
import { findFreePort } from '@agentplane/db/embedded';
import type { ManagerClient } from '@agentplane/manager-client';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { type Service, startService } from './service-process.js';

export const ENGINE_ENTRY = fileURLToPath(new URL('../../apps/engine/dist/server.js', import.meta.url));

/** A new agent of `body`, the headers of a run with a token for it, and credentials for its engines. */
export async function createRunnableAgent(client: ManagerClient, body: Record<string, unknown>) {
  const { id } = await client.expect<{ id: string }>(201, 'POST', '/agents/', body);
  const { access_token: token } = await client.expect<{ access_token: string }>(201, 'POST', `/agents/${id}/token`);
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  return { id, headers, credentials: await client.issueEngineCredentials(id) };
}

/** An engine process for one agent, with that agent's own credentials, trusting the manager's tokens. */
export async function startEngine(options: {
  credentials: TEngineCredentials;
  managerIssuer: string;
  env?: NodeJS.ProcessEnv;
}): Promise<Service> {
  return startService(
    ENGINE_ENTRY,
    {
      // Benchmark 4's model is a local server.
      ENGINE_EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
      LOG_LEVEL: 'warn',
      AGENT_ID: options.credentials.agent_id,
      DATABASE_URL: options.credentials.database_url,
      AGENT_KEY: options.credentials.agent_key,
      ENGINE_MANAGER_ISSUER: options.managerIssuer,
      ...options.env,
    },
    '/health',
    await findFreePort(),
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
