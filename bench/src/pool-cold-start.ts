// Benchmark 8: what an agent's first request costs on a pool. Time to the first event of a run on an
// agent the pool knows but has not loaded (cold: its first request there) against a run on an agent it
// has loaded (warm). Runs go one at a time, each agent's cold run followed by a warm one on the same
// agent, so that each pair shares the machine's state of the moment.
import { ManagerClient } from '@agentplane/manager-client';
import { drainStream, timeToFirstEvent } from './engine-comparison.js';
import { MOCK_AGENT } from './engine-process.js';
import { median, percentile } from './load.js';
import { type PoolBenchSetup, poolRuns, readPoolAgents, startBenchPoolEngine } from './pool-engine.js';

type FirstEvents = { p50Ms: number; p99Ms: number };

export type PoolColdStartResult = {
  agents: number;
  cold: FirstEvents;
  warm: FirstEvents;
  /** The median over agents of each one's cold minus warm time to first event, in ms. */
  pairedRiseMs: number;
};

// The first runs of a fresh process pay for what no agent's load does again (code compiled, modules
// imported, connections opened): they go to an agent of their own, not measured.
const PROCESS_WARM_UP_RUNS = 20;

export async function benchPoolColdStart(
  options: PoolBenchSetup & {
    agents: number;
  },
): Promise<PoolColdStartResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const template = await client.expect<{ id: string }>(201, 'POST', '/agents/', { ...MOCK_AGENT, name: 'cold bench' });
  const pool = await startBenchPoolEngine({ ...options, templateAgentId: template.id, count: options.agents + 1 });
  try {
    const { url } = pool.engine;
    const [warmUp, ...measured] = await poolRuns(client, pool.agentIds);
    if (warmUp === undefined) throw new Error('no agent to warm the pool engine up with');
    const firstEvent = async (run: typeof warmUp) => {
      const { elapsed, reader } = await timeToFirstEvent(`${url}${run.path}`, run.headers);
      await drainStream(reader);
      return elapsed;
    };
    for (let index = 0; index < PROCESS_WARM_UP_RUNS; index++) await firstEvent(warmUp);
    const cold: number[] = [];
    const warm: number[] = [];
    for (const run of measured) {
      cold.push(await firstEvent(run));
      warm.push(await firstEvent(run));
    }
    // Every measured agent loaded by its first run and none unloaded since: each cold run was one.
    const { loaded } = await readPoolAgents(url);
    if (loaded !== measured.length + 1) throw new Error(`the pool loaded ${loaded} agents, not ${measured.length + 1}`);
    const figures = (times: number[]) => ({ p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99) });
    return {
      agents: measured.length,
      cold: figures(cold),
      warm: figures(warm),
      pairedRiseMs: median(cold.map((time, index) => time - (warm[index] ?? Number.NaN))),
    };
  } finally {
    await pool.stop();
  }
}
