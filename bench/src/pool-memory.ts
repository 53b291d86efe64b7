// Benchmark 7: what a pool costs in memory. Thousands of agents placed on one pool engine, a part of
// them having each served a run (so loaded, as agents that answered within the last minute are, the
// idle unload being minutes away), then the engine process's resident memory.
import { ManagerClient } from '@agentplane/manager-client';
import { makeRunAgentInput } from '@agentplane/testing';
import { type IdleActivity, measureIdleActivity } from './database-activity.js';
import { inBatches } from './engine-comparison.js';
import { currentRssMiB, MOCK_AGENT, peakRssMiB } from './engine-process.js';
import { type PoolBenchSetup, poolRuns, readPoolAgents, startBenchPoolEngine } from './pool-engine.js';

export type PoolMemoryResult = {
  placed: number;
  served: number;
  placementSeconds: number;
  /** RSS with every agent placed and known, none loaded yet. */
  idleRssMiB: number;
  /** Seconds the runs took, and from the first run's start to the reading of `rssMiB`. */
  runsSeconds: number;
  sinceFirstRunSeconds: number;
  /** What the engine had loaded when the RSS was read. */
  loaded: number;
  rssMiB: number;
  peakRssMiB: number;
  /** The engine's CPU and the database's transactions over a few seconds without requests: none loaded, then all. */
  idle: { noneLoaded: IdleActivity; loaded: IdleActivity };
};

// Long enough for every loaded agent's timers (queue, leases, WhatsApp polls) to have fired a few times.
export const IDLE_WINDOW_MS = 5000;

export async function benchPoolMemory(
  options: PoolBenchSetup & {
    placed: number;
    served: number;
    /** Runs in flight at once. */
    concurrency: number;
  },
): Promise<PoolMemoryResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const template = await client.expect<{ id: string }>(201, 'POST', '/agents/', { ...MOCK_AGENT, name: 'pool bench' });
  const pool = await startBenchPoolEngine({ ...options, templateAgentId: template.id, count: options.placed });
  try {
    const { url, child } = pool.engine;
    const pid = child.pid ?? 0;
    const idleRssMiB = await currentRssMiB(pid);
    const noneLoaded = await measureIdleActivity(pid, options.databaseUrl, IDLE_WINDOW_MS);
    // Minted before the clock starts, so that the runs are all within the minute.
    const runs = await poolRuns(client, pool.agentIds.slice(0, options.served));
    const started = performance.now();
    await inBatches(runs.length, options.concurrency, async (index) => {
      const run = runs[index];
      if (run !== undefined) await runToEnd(`${url}${run.path}`, run.headers);
    });
    const runsSeconds = (performance.now() - started) / 1000;
    const { loaded } = await readPoolAgents(url);
    const rssMiB = await currentRssMiB(pid);
    const sinceFirstRunSeconds = (performance.now() - started) / 1000;
    const loadedActivity = await measureIdleActivity(pid, options.databaseUrl, IDLE_WINDOW_MS);
    return {
      placed: options.placed,
      served: runs.length,
      placementSeconds: pool.placementSeconds,
      idleRssMiB,
      runsSeconds,
      sinceFirstRunSeconds,
      loaded,
      rssMiB,
      peakRssMiB: await peakRssMiB(pid),
      idle: { noneLoaded, loaded: loadedActivity },
    };
  } finally {
    await pool.stop();
  }
}

/** One run of the mock model, read to its end; one that did not finish is an error, not a sample. */
async function runToEnd(url: string, headers: Record<string, string>): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(makeRunAgentInput('hello')) });
  const events = await response.text();
  if (response.status !== 200 || !events.includes('RUN_FINISHED')) {
    throw new Error(`${url} answered ${response.status}: ${events.slice(0, 300)}`);
  }
}
