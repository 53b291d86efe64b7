// Every manager replica runs one experiment worker. A pass takes the active experiments one at a time
// under a lease (claimed FOR UPDATE SKIP LOCKED, so replicas take different ones) and for each: records
// and grades the runs that ended (outside any transaction: a model judge may take its time), then, under
// the experiment's row lock, queues what its concurrency allows, or finishes it. Everything it knows is
// in the rows, so a new worker after a restart goes on where the last one stopped; a run's deterministic
// id and its result's state make every (item, version, repeat) run and be recorded exactly once.
import { randomUUID } from 'node:crypto';
import type { AgentKeyring, Db, ExperimentModel, SecretBox, Tx } from '@agentplane/db';
import { inTransaction } from '@agentplane/db';
import type { EgressAllowList, Logger } from '@agentplane/server-kit';
import { cancelExperimentRuns, queuePendingRuns, readEndedRuns } from './experiment-runs.js';
import { createGrader } from './experiment-scoring.js';
import { prunePinnedForAgent, storedScorers } from './experiment-service.js';
import { MissingVersionsError, writePinnedConfigs } from './pinned-configs.js';
import { observeEndedRun, writeOutcome } from './record-runs.js';

export type ExperimentWorkerDependencies = {
  db: Db;
  box: SecretBox;
  agentKeys: AgentKeyring;
  egressAllow: EgressAllowList;
  logger: Logger;
  pollMs: number;
  judgeTimeoutMs: number;
  /** How long a claimed experiment stays this replica's without a sign of life; tests shorten it. */
  leaseMs?: number;
};

/** Ended runs recorded (and graded, in parallel) at a time, with the lease renewed after each batch. */
const RECORD_BATCH = 16;

class LeaseLost extends Error {}

function leaseMsOf(deps: ExperimentWorkerDependencies): number {
  // A batch's grading lasts about one judge timeout (the scorers of a run are graded together).
  return deps.leaseMs ?? 2 * deps.judgeTimeoutMs + 30_000;
}

async function claimExperiment(
  deps: ExperimentWorkerDependencies,
  owner: string,
  done: string[],
): Promise<ExperimentModel | undefined> {
  const [claimed] = await deps.db.$queryRaw<{ id: string }[]>`
    UPDATE experiments
    SET lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMsOf(deps) / 1000})
    WHERE id = (
      SELECT id FROM experiments
      WHERE status IN ('running', 'cancelling') AND NOT (id = ANY(${done}::uuid[]))
        AND (lease_expires_at IS NULL OR lease_expires_at < now() OR lease_owner = ${owner})
      ORDER BY created_at, id
      LIMIT 1
      FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  if (claimed === undefined) return undefined;
  return (await deps.db.experiment.findUnique({ where: { id: claimed.id } })) ?? undefined;
}

async function renewLease(deps: ExperimentWorkerDependencies, owner: string, id: string): Promise<void> {
  const renewed = await deps.db.$executeRaw`
    UPDATE experiments SET lease_expires_at = now() + make_interval(secs => ${leaseMsOf(deps) / 1000})
    WHERE id = ${id}::uuid AND lease_owner = ${owner}`;
  if (renewed === 0) throw new LeaseLost();
}

async function releaseLease(db: Db, owner: string, id: string): Promise<void> {
  await db.$executeRaw`
    UPDATE experiments SET lease_owner = NULL, lease_expires_at = NULL
    WHERE id = ${id}::uuid AND lease_owner = ${owner}`;
}

/** Records every run of the experiment that has ended; stops when the lease is lost. */
async function recordEndedRuns(deps: ExperimentWorkerDependencies, owner: string, experiment: ExperimentModel) {
  const scorers = storedScorers(experiment);
  const grader = createGrader(scorers, deps);
  try {
    for (;;) {
      const ended = await readEndedRuns(deps.db, {
        experimentId: experiment.id,
        agentId: experiment.agentId,
        datasetId: experiment.datasetId,
        datasetVersion: experiment.datasetVersion,
        limit: RECORD_BATCH,
      });
      if (ended.length === 0) return;
      const outcomes = await Promise.all(
        ended.map((run) => observeEndedRun(deps.db, run, { agentId: experiment.agentId, scorers, grader })),
      );
      // Checked before writing: a replica that took the experiment over records these runs itself.
      await renewLease(deps, owner, experiment.id);
      for (const [index, run] of ended.entries()) {
        await writeOutcome(deps.db, experiment.id, run, outcomes[index] as (typeof outcomes)[number]);
      }
    }
  } finally {
    await grader.close();
  }
}

async function countStates(tx: Tx, experimentId: string): Promise<Map<string, number>> {
  const rows = await tx.experimentResult.groupBy({
    by: ['state'],
    where: { experimentId },
    _count: { _all: true },
  });
  return new Map(rows.map((row) => [row.state, row._count._all]));
}

async function finish(tx: Tx, experiment: ExperimentModel, status: string, reason?: string): Promise<void> {
  await tx.experiment.update({
    where: { id: experiment.id },
    data: {
      status,
      finishedAt: new Date(),
      leaseOwner: null,
      leaseExpiresAt: null,
      ...(reason === undefined ? {} : { statusReason: reason }),
    },
  });
  await prunePinnedForAgent(tx, experiment.agentId);
}

/** Stops an experiment that cannot go on: its runs are cancelled, and it ends `failed` with why. */
async function failExperiment(tx: Tx, experiment: ExperimentModel, reason: string): Promise<void> {
  await cancelExperimentRuns(tx, { experimentId: experiment.id, agentId: experiment.agentId });
  await tx.experimentResult.updateMany({
    where: { experimentId: experiment.id, state: 'queued' },
    data: { state: 'cancelled' },
  });
  await finish(tx, experiment, 'failed', reason);
}

/** Under the experiment's row lock (a cancel takes it too): queue what is allowed, or finish it. */
async function advance(deps: ExperimentWorkerDependencies, experiment: ExperimentModel, issuer: string) {
  await inTransaction(deps.db, async (tx) => {
    const [locked] = await tx.$queryRaw<{ status: string; dataset_id: string | null }[]>`
      SELECT status, dataset_id FROM experiments WHERE id = ${experiment.id}::uuid FOR UPDATE`;
    if (locked === undefined) return;
    const states = await countStates(tx, experiment.id);
    const pending = states.get('pending') ?? 0;
    const queued = states.get('queued') ?? 0;
    if (locked.status === 'cancelling') {
      if (queued === 0) await finish(tx, experiment, 'cancelled');
      return;
    }
    if (locked.status !== 'running') return;
    if (pending === 0) {
      if (queued === 0) await finish(tx, experiment, 'completed');
      return;
    }
    if (locked.dataset_id === null) {
      await failExperiment(tx, experiment, 'Its dataset was deleted before every item ran');
      return;
    }
    const agent = await tx.agent.findUnique({ where: { id: experiment.agentId }, select: { deploymentPool: true } });
    try {
      // Sealed again when the agent moved since (its new engine cannot open the old key's seals).
      await writePinnedConfigs(tx, {
        agentId: experiment.agentId,
        workspaceId: experiment.workspaceId,
        pool: agent?.deploymentPool ?? null,
        versions: experiment.agentVersions.map(Number),
        box: deps.box,
        agentKeys: deps.agentKeys,
      });
    } catch (error) {
      if (!(error instanceof MissingVersionsError)) throw error;
      await failExperiment(tx, experiment, `Version ${error.versions.join(', ')} of the agent is no longer kept`);
      return;
    }
    const queuedNow = await queuePendingRuns(tx, {
      experimentId: experiment.id,
      agentId: experiment.agentId,
      datasetId: locked.dataset_id,
      datasetVersion: experiment.datasetVersion,
      concurrency: experiment.concurrency,
      issuer,
    });
    if (queuedNow > 0 && experiment.startedAt === null) {
      await tx.experiment.updateMany({
        where: { id: experiment.id, startedAt: null },
        data: { startedAt: new Date() },
      });
    }
  });
}

/** One pass over the active experiments; each is driven by one replica at a time. */
export async function runExperimentPass(
  deps: ExperimentWorkerDependencies,
  owner: string,
  issuer: string,
): Promise<void> {
  const done: string[] = [];
  for (;;) {
    const experiment = await claimExperiment(deps, owner, done);
    if (experiment === undefined) return;
    done.push(experiment.id);
    try {
      await recordEndedRuns(deps, owner, experiment);
      await advance(deps, experiment, issuer);
    } catch (error) {
      if (!(error instanceof LeaseLost)) throw error;
      deps.logger.warn({ experiment_id: experiment.id }, 'lost the lease of an experiment to another replica');
    } finally {
      await releaseLease(deps.db, owner, experiment.id);
    }
  }
}

export type ExperimentWorker = {
  /** Runs a pass every `pollMs`, with runs issued as `issuer`, until stopped. */
  start: (issuer: string) => void;
  /** A pass now (after the one going on): a launch or a cancel need not wait for the poll. */
  wake: () => void;
  /** Stops the passes and waits for the one going on. */
  stop: () => Promise<void>;
};

export function createExperimentWorker(deps: ExperimentWorkerDependencies): ExperimentWorker {
  const owner = randomUUID();
  let timer: NodeJS.Timeout | undefined;
  let issuer: string | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const pass = (): void => {
    if (issuer === undefined || stopped) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = runExperimentPass(deps, owner, issuer)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error }, 'an experiment pass failed; the next one tries again'),
      )
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          pass();
        }
      });
  };
  return {
    start: (asIssuer) => {
      issuer = asIssuer;
      timer ??= setInterval(pass, deps.pollMs);
      pass();
    },
    wake: pass,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
