// Benchmark 9: what serving many agents from one process costs in throughput. One agent made by the
// manager, on an engine of its own with its own credentials (as in benchmark 4), against 100 copies of
// it placed on one pool engine, the load spread over them in turn, each run with its agent's own
// token. The two engines run in interleaved rounds (engine-comparison.ts).
import { ManagerClient } from '@agentplane/manager-client';
import { type ContenderFigures, compareEngines, soleAgentRuns } from './engine-comparison.js';
import { createRunnableAgent, MOCK_AGENT, startEngine } from './engine-process.js';
import { type PoolBenchSetup, poolRuns, startBenchPoolEngine } from './pool-engine.js';
import type { Service } from './service-process.js';

/** Runs each of the pool's agents serves before the rounds. */
const WARM_UP_RUNS_PER_AGENT = 30;

export type PoolThroughputResult = {
  agents: number;
  rounds: number;
  pool: ContenderFigures;
  dedicated: ContenderFigures;
};

export async function benchPoolThroughput(
  options: PoolBenchSetup & {
    agents: number;
    rounds: number;
    roundSeconds: number;
  },
): Promise<PoolThroughputResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const agent = await createRunnableAgent(client, { ...MOCK_AGENT, name: 'dedicated vs pool bench' });
  const pool = await startBenchPoolEngine({ ...options, templateAgentId: agent.id, count: options.agents });
  let dedicated: Service | undefined;
  try {
    dedicated = await startEngine({ credentials: agent.credentials, managerIssuer: options.managerUrl });
    const figures = await compareEngines(
      {
        pool: { url: pool.engine.url, runs: await poolRuns(client, pool.agentIds) },
        dedicated: { url: dedicated.url, runs: soleAgentRuns(agent.headers) },
      },
      // PostgreSQL plans a pool's statements once per agent's role on each connection, and settles on a
      // statement's generic plan after five runs of it (role-statements.ts): the rounds measure the
      // pool once each of its agents has served some 30 runs, as a pool serving them for a while does.
      // Counted in runs, not seconds: on a slower day 10 s gave each agent only half of them, and the
      // first rounds were still warming up. The dedicated engine warms up with as many runs. The
      // warm-up's own rate is printed too.
      {
        rounds: options.rounds,
        seconds: options.roundSeconds,
        warmUpRuns: WARM_UP_RUNS_PER_AGENT * options.agents,
      },
    );
    return { agents: options.agents, rounds: options.rounds, ...figures };
  } finally {
    await dedicated?.stop();
    await pool.stop();
  }
}
