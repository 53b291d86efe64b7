// A manager and one pool engine as separate processes, in the order `pnpm start` starts them: the pool's
// credentials from the manager's CLI, the engine (told the manager's issuer, whose port is held free
// meanwhile), then the manager, told the pool's URL and placing new agents on it.
import { randomBytes } from 'node:crypto';
import { reservePort } from '../reserved-port.js';
import { type PoolCredentialsEnv, poolEnvFor } from './engine-env.js';
import type { ServiceProcesses } from './service-processes.js';

export type PoolPlatform = {
  managerUrl: string;
  /** The pool engine's root; each agent placed on it is served under /agents/{id}. */
  poolUrl: string;
  pool: string;
  /** The manager's environment, for another manager or the CLI. */
  managerEnv: NodeJS.ProcessEnv;
  /** What the pool engine logs in with. */
  credentials: PoolCredentialsEnv;
};

/** A pool name of the suite's own: pool roles are cluster-wide, and suites share the server. */
export const uniquePoolName = () => `t_${randomBytes(6).toString('hex')}`;

export async function startPoolPlatform(
  services: ServiceProcesses,
  options: { managerEnv: NodeJS.ProcessEnv; engineEnv?: NodeJS.ProcessEnv },
): Promise<PoolPlatform> {
  const pool = uniquePoolName();
  // The pool's URL is no part of its credentials; the manager is told the real one below.
  const credentials = await poolEnvFor({ ...options.managerEnv, ENGINE_POOLS: `${pool}=http://localhost` }, pool);
  const managerPort = await reservePort('127.0.0.1');
  const poolUrl = await services.start('engine', {
    ...options.engineEnv,
    ...credentials,
    // The manager's own issuer, with no ISSUER_URL or PUBLIC_URL.
    ENGINE_MANAGER_ISSUER: `http://localhost:${managerPort.port}`,
  });
  await managerPort.release();
  const managerEnv = { ...options.managerEnv, ENGINE_POOLS: `${pool}=${poolUrl}`, DEFAULT_ENGINE_POOL: pool };
  const managerUrl = await services.start('manager', { ...managerEnv, PORT: String(managerPort.port) });
  return { managerUrl, poolUrl, pool, managerEnv, credentials };
}
