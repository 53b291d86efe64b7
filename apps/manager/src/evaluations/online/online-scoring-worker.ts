// The online scoring worker every manager replica runs: it polls the queue, leases a batch of sampled
// runs, grades them side by side (outside any transaction) and stores each run's scores under the
// lease it was graded under. A lost lease stores nothing: the manager that holds the run now stores it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '@agentplane/server-kit';
import { type GradeDependencies, gradeRun } from './grade-run.js';
import type { OnlineScoringSettings } from './online-scoring-settings.js';
import { claimQueuedRuns, dropExhaustedRuns, finishQueuedRun, pruneRunScores, type QueuedRun } from './scoring-queue.js';

export type OnlineScoringWorkerDependencies = GradeDependencies & {
  logger: Logger;
  settings: Pick<OnlineScoringSettings, 'pollMs' | 'leaseMs' | 'concurrency' | 'maxScoresPerAgent'>;
  /** This worker's lease owner name; one of its own by default. */
  owner?: string;
};

export type OnlineScoringWorker = { stop: () => Promise<void> };

const PRUNE_EVERY_MS = 10 * 60_000;

async function scoreQueuedRun(deps: OnlineScoringWorkerDependencies, owner: string, run: QueuedRun): Promise<void> {
  const results = await gradeRun(deps, run.agentId, run.runId);
  const kept = await finishQueuedRun(deps.db, { ...run, owner }, results);
  if (!kept) {
    deps.logger.warn(
      { agent_id: run.agentId, run_id: run.runId },
      'an online scoring lease ran out mid-grading; the manager holding the run now stores its scores',
    );
  }
}

/**
 * Claims and grades one batch; the number of runs claimed. A run whose scores could not be stored is
 * left to its lease, which runs out, and the run is claimed again (at most MAX_SCORING_ATTEMPTS times).
 */
export async function runOnlineScoringPass(deps: OnlineScoringWorkerDependencies, owner: string): Promise<number> {
  const claimed = await claimQueuedRuns(deps.db, {
    owner,
    leaseMs: deps.settings.leaseMs,
    limit: deps.settings.concurrency,
  });
  const outcomes = await Promise.allSettled(claimed.map((run) => scoreQueuedRun(deps, owner, run)));
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') {
      deps.logger.warn({ err: outcome.reason }, "a run's online scores could not be stored; its lease will run out");
    }
  }
  return claimed.length;
}

export function startOnlineScoringWorker(deps: OnlineScoringWorkerDependencies): OnlineScoringWorker {
  const owner = deps.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  let lastPrune = 0;

  async function tick(): Promise<void> {
    try {
      // A full batch means more may wait: go on at once, until stopped.
      while (!stopped && (await runOnlineScoringPass(deps, owner)) === deps.settings.concurrency);
      if (Date.now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await dropExhaustedRuns(deps.db);
        await pruneRunScores(deps.db, deps.settings.maxScoresPerAgent);
      }
    } catch (error) {
      deps.logger.warn({ err: error }, 'the online scoring worker failed a round; it tries again');
    }
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(() => {
        running = undefined;
        schedule(deps.settings.pollMs);
      });
    }, delayMs);
    timer.unref();
  }

  schedule(0);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
