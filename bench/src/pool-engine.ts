// A pool engine of the bench's own (benchmarks 7 to 9): copies of one agent placed on a new pool
// (pool-placement.ts), and an engine process serving them, once it knows every one of them.

import type { ManagerClient } from '@agentplane/manager-client';
import { waitUntil } from '@agentplane/testing';
import { inBatches } from './engine-comparison.js';
import { runHeaders, startPoolEngine } from './engine-process.js';
import type { Target } from './load.js';
import { placeAgentCopies } from './pool-placement.js';
import type { Service } from './service-process.js';

/** Where the pool benchmarks make their agents, and the manager's SECRETS_KEY their pools' keys come from. */
export type PoolBenchSetup = { managerUrl: string; databaseUrl: string; platformKey: string };

export type BenchPoolEngine = {
  engine: Service;
  agentIds: string[];
  placementSeconds: number;
  /** Stops the engine, then removes the agents and the roles. */
  stop: () => Promise<void>;
};

/** What a pool engine says of its agents at its root's /health. */
export async function readPoolAgents(engineUrl: string): Promise<{ placed: number; loaded: number }> {
  const response = await fetch(`${engineUrl}/health`);
  const health = (await response.json()) as { agents?: { placed: number; loaded: number } };
  if (health.agents === undefined) throw new Error(`${engineUrl}/health answered ${response.status} with no agents`);
  return health.agents;
}

/** Each agent's run endpoint on a pool, with a token the manager minted for it; minted a few at a time. */
export async function poolRuns(client: ManagerClient, agentIds: string[]): Promise<Target[]> {
  const runs: Target[] = [];
  await inBatches(agentIds.length, 8, async (index) => {
    const agentId = agentIds[index] as string;
    runs[index] = { path: `/agents/${agentId}/agent/run`, headers: await runHeaders(client, agentId) };
  });
  return runs;
}

export async function startBenchPoolEngine(
  options: PoolBenchSetup & { templateAgentId: string; count: number; env?: NodeJS.ProcessEnv },
): Promise<BenchPoolEngine> {
  // The engine's default (ENGINE_POOL_DB_CONNECTIONS), which the pool role's connection limit must allow.
  const dbConnections = 10;
  const pool = await placeAgentCopies({ ...options, dbConnections });
  let engine: Service | undefined;
  try {
    engine = await startPoolEngine({
      credentials: pool.credentials,
      managerIssuer: options.managerUrl,
      env: { ENGINE_POOL_DB_CONNECTIONS: String(dbConnections), ...options.env },
    });
    const { url } = engine;
    await waitUntil(async () => (await readPoolAgents(url)).placed === options.count, {
      what: `the pool engine to know its ${options.count} agents`,
      timeoutMs: 60_000,
      intervalMs: 100,
    });
  } catch (error) {
    await engine?.stop();
    await pool.remove();
    throw error;
  }
  const running = engine;
  return {
    engine: running,
    agentIds: pool.agentIds,
    placementSeconds: pool.placementSeconds,
    stop: async () => {
      await running.stop();
      await pool.remove();
    },
  };
}
