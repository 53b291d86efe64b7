// An agent's experiments: launch (checked, its pinned configs and every result row written in one
// transaction), list, read with aggregates, cancel and delete. The worker (experiment-worker.ts) does
// the running.
import {
  EXPERIMENT_CONCURRENCY_DEFAULT,
  mapScorerSecrets,
  maskSecret,
  RESOURCE_NAME_MAX_LENGTH,
  type TExperiment,
  type TExperimentCreate,
  type TExperimentDetail,
  type TExperimentParams,
  type TExperimentProgress,
  type TExperimentResultState,
  type TExperimentStatus,
  type TPaginationQuery,
  type TScorer,
} from '@agentplane/contracts';
import {
  type AgentKeyring,
  type Db,
  type ExperimentModel,
  inTransaction,
  type Prisma,
  type SecretBox,
  type Tx,
} from '@agentplane/db';
import { AppError, type EgressAllowList, type Logger } from '@agentplane/server-kit';
import { lockAgent } from '../agents/lock-agent.js';
import { aggregateVersions } from './experiment-aggregates.js';
import { cancelExperimentRuns } from './experiment-runs.js';
import { checkScorers } from './experiment-scoring.js';
import type { ExperimentSettings } from './experiment-settings.js';
import { MissingVersionsError, prunePinnedConfigs, writePinnedConfigs } from './pinned-configs.js';

export type ExperimentContext = {
  db: Db;
  box: SecretBox;
  agentKeys: AgentKeyring;
  egressAllow: EgressAllowList;
  logger: Logger;
  settings: ExperimentSettings;
  workspaceId: string;
  userId: string;
};

export const NO_AGENT = 'No such agent.';
export const NO_EXPERIMENT = 'No such experiment.';
export const ACTIVE_STATUSES: readonly TExperimentStatus[] = ['running', 'cancelling'];

function invalid(path: string, message: string): AppError {
  return new AppError('validation_failed', 'The experiment cannot be launched as asked.', {
    errors: [{ path, message }],
  });
}

/** Runs of each experiment in each state. */
export async function readProgress(db: Db | Tx, experimentIds: string[]): Promise<Map<string, TExperimentProgress>> {
  const rows = await db.experimentResult.groupBy({
    by: ['experimentId', 'state'],
    where: { experimentId: { in: experimentIds } },
    _count: { _all: true },
  });
  const progress = new Map<string, TExperimentProgress>();
  for (const id of experimentIds) progress.set(id, { pending: 0, queued: 0, scored: 0, failed: 0, cancelled: 0 });
  for (const row of rows) {
    const counts = progress.get(row.experimentId);
    if (counts !== undefined) counts[row.state as TExperimentResultState] = row._count._all;
  }
  return progress;
}

export function storedScorers(row: ExperimentModel): TScorer[] {
  return row.scorers as TScorer[];
}

export function toExperiment(row: ExperimentModel, progress: TExperimentProgress, box: SecretBox): TExperiment {
  return {
    id: row.id,
    agent_id: row.agentId,
    name: row.name,
    dataset_id: row.datasetId,
    dataset_version: row.datasetVersion,
    agent_versions: row.agentVersions.map(Number),
    scorers: storedScorers(row).map((scorer) => mapScorerSecrets(scorer, (value) => maskSecret(box.open(value)))),
    repeats: row.repeats,
    concurrency: row.concurrency,
    status: row.status as TExperimentStatus,
    status_reason: row.statusReason,
    created_by: row.createdBy,
    item_count: row.itemCount,
    run_count: row.runCount,
    progress,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

async function requireAgent(ctx: ExperimentContext, agentId: string): Promise<void> {
  const agent = await ctx.db.agent.findFirst({
    where: { id: agentId, workspaceId: ctx.workspaceId },
    select: { id: true },
  });
  if (agent === null) throw new AppError('not_found', NO_AGENT);
}

/** The experiment, if it is of this agent of the workspace: any other id is as unknown as a made-up one. */
export async function findExperiment(
  db: Db | Tx,
  workspaceId: string,
  params: TExperimentParams,
): Promise<ExperimentModel> {
  const row = await db.experiment.findFirst({
    where: { id: params.experimentId, agentId: params.id, workspaceId },
  });
  if (row === null) throw new AppError('not_found', NO_EXPERIMENT);
  return row;
}

async function refusePastActiveCap(tx: Tx, ctx: ExperimentContext): Promise<void> {
  // The workspace's row lock: two launches at the cap count one after the other (workspace-cap.ts).
  await tx.$queryRaw`SELECT 1 FROM workspaces WHERE id = ${ctx.workspaceId}::uuid FOR NO KEY UPDATE`;
  const active = await tx.experiment.count({
    where: { workspaceId: ctx.workspaceId, status: { in: [...ACTIVE_STATUSES] } },
  });
  if (active >= ctx.settings.maxActivePerWorkspace) {
    throw new AppError(
      'validation_failed',
      `This workspace has ${active} experiments running, the most the operator allows (MAX_ACTIVE_EXPERIMENTS_PER_WORKSPACE=${ctx.settings.maxActivePerWorkspace}); wait for one to finish or cancel one.`,
      { type: 'active-experiments' },
    );
  }
}

/** Deletes the agent's oldest finished experiments so that, with one more, it keeps EXPERIMENTS_KEPT_PER_AGENT. */
async function pruneOldExperiments(tx: Tx, agentId: string, kept: number): Promise<void> {
  await tx.$executeRaw`
    DELETE FROM experiments WHERE id IN (
      SELECT id FROM experiments
      WHERE agent_id = ${agentId}::uuid AND status NOT IN ('running', 'cancelling')
      ORDER BY created_at DESC, id DESC
      OFFSET ${Math.max(kept - 1, 0)})`;
}

/** Deletes the pinned configs no active experiment of the agent runs with. */
export async function prunePinnedForAgent(tx: Tx, agentId: string): Promise<void> {
  const active = await tx.experiment.findMany({
    where: { agentId, status: { in: [...ACTIVE_STATUSES] } },
    select: { agentVersions: true },
  });
  await prunePinnedConfigs(tx, agentId, [...new Set(active.flatMap((row) => row.agentVersions.map(Number)))]);
}

function defaultName(datasetName: string, version: number, versions: number[]): string {
  return `${datasetName} v${version}: ${versions.map((v) => `#${v}`).join(' vs ')}`.slice(0, RESOURCE_NAME_MAX_LENGTH);
}

export async function createExperiment(
  ctx: ExperimentContext,
  agentId: string,
  body: TExperimentCreate,
): Promise<TExperiment> {
  const { settings } = ctx;
  const concurrency = body.concurrency ?? Math.min(EXPERIMENT_CONCURRENCY_DEFAULT, settings.maxConcurrency);
  if (concurrency > settings.maxConcurrency) {
    throw invalid('concurrency', `At most ${settings.maxConcurrency} (EXPERIMENT_MAX_CONCURRENCY)`);
  }
  const scorers = checkScorers(body.scorers, ctx.egressAllow, ctx.logger);
  const row = await inTransaction(ctx.db, async (tx) => {
    const agent = await lockAgent(tx, ctx.workspaceId, agentId);
    if (agent === undefined) throw new AppError('not_found', NO_AGENT);
    const dataset = await tx.dataset.findFirst({ where: { id: body.dataset, workspaceId: ctx.workspaceId } });
    if (dataset === null) throw invalid('dataset', 'No dataset with this id in the workspace');
    const datasetVersion = body.dataset_version ?? dataset.version;
    const version = await tx.datasetVersion.findUnique({
      where: { datasetId_version: { datasetId: dataset.id, version: datasetVersion } },
    });
    if (version === null) {
      throw invalid(
        'dataset_version',
        `The dataset has no version ${datasetVersion}; its current one is ${dataset.version}`,
      );
    }
    if (version.itemCount === 0) throw invalid('dataset_version', 'The dataset version has no items');
    const runCount = version.itemCount * body.agent_versions.length * body.repeats;
    if (runCount > settings.maxRuns) {
      throw invalid(
        'agent_versions',
        `${version.itemCount} items × ${body.agent_versions.length} versions × ${body.repeats} repeats is ${runCount} runs; at most ${settings.maxRuns} (EXPERIMENT_MAX_RUNS)`,
      );
    }
    try {
      await writePinnedConfigs(tx, {
        agentId,
        workspaceId: ctx.workspaceId,
        pool: agent.deploymentPool,
        versions: body.agent_versions,
        box: ctx.box,
        agentKeys: ctx.agentKeys,
      });
    } catch (error) {
      if (!(error instanceof MissingVersionsError)) throw error;
      const index = body.agent_versions.indexOf(error.versions[0] as number);
      throw invalid(
        `agent_versions[${index}]`,
        `The agent has no version ${error.versions.join(', ')} (never made, or no longer kept)`,
      );
    }
    await refusePastActiveCap(tx, ctx);
    await pruneOldExperiments(tx, agentId, settings.keptPerAgent);
    const created = await tx.experiment.create({
      data: {
        workspaceId: ctx.workspaceId,
        agentId,
        datasetId: dataset.id,
        datasetVersion,
        name: body.name ?? defaultName(dataset.name, datasetVersion, body.agent_versions),
        agentVersions: body.agent_versions.map(BigInt),
        scorers: scorers.map((scorer) => mapScorerSecrets(scorer, ctx.box.seal)) as unknown as Prisma.InputJsonValue,
        repeats: body.repeats,
        concurrency,
        createdBy: ctx.userId,
        itemCount: version.itemCount,
        runCount,
      },
    });
    // Every (item, version, repeat) now, pending: what is left to run is then a query, after any restart.
    await tx.$executeRaw`
      INSERT INTO experiment_results (experiment_id, item_id, agent_version, repeat, position)
      SELECT ${created.id}::uuid, i.item_id, v.version, r.repeat, i.position
      FROM (SELECT item_id, (row_number() OVER (ORDER BY seq) - 1)::int AS position
            FROM dataset_items
            WHERE dataset_id = ${dataset.id}::uuid AND valid_from <= ${datasetVersion}
              AND (valid_to IS NULL OR valid_to > ${datasetVersion})) i
      CROSS JOIN unnest(${body.agent_versions.map(BigInt)}::bigint[]) AS v(version)
      CROSS JOIN generate_series(0, ${body.repeats - 1}) AS r(repeat)`;
    return created;
  });
  const progress = await readProgress(ctx.db, [row.id]);
  return toExperiment(row, progress.get(row.id) as TExperimentProgress, ctx.box);
}

export async function listExperiments(
  ctx: ExperimentContext,
  agentId: string,
  page: TPaginationQuery,
): Promise<{ items: TExperiment[]; total: number }> {
  await requireAgent(ctx, agentId);
  const where = { agentId, workspaceId: ctx.workspaceId };
  const [rows, total] = await Promise.all([
    ctx.db.experiment.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: page.limit,
      skip: page.offset,
    }),
    ctx.db.experiment.count({ where }),
  ]);
  const progress = await readProgress(
    ctx.db,
    rows.map((row) => row.id),
  );
  return { items: rows.map((row) => toExperiment(row, progress.get(row.id) as TExperimentProgress, ctx.box)), total };
}

export async function getExperimentDetail(
  ctx: ExperimentContext,
  params: TExperimentParams,
): Promise<TExperimentDetail> {
  const row = await findExperiment(ctx.db, ctx.workspaceId, params);
  const [progress, results] = await Promise.all([
    readProgress(ctx.db, [row.id]),
    ctx.db.experimentResult.findMany({
      where: { experimentId: row.id },
      select: { itemId: true, agentVersion: true, state: true, scores: true, latencyMs: true, tokens: true },
    }),
  ]);
  return {
    ...toExperiment(row, progress.get(row.id) as TExperimentProgress, ctx.box),
    aggregates: aggregateVersions({
      versions: row.agentVersions.map(Number),
      scorers: storedScorers(row),
      repeats: row.repeats,
      results,
    }),
  };
}

/**
 * Cancels a running experiment: its waiting runs are cancelled, its running ones asked to stop, its
 * results not yet queued marked cancelled, and it is `cancelling` until the worker has seen its last
 * runs end. Under the experiment's row lock, which the worker's queueing takes too: a cancel either
 * comes first (nothing more is queued) or after (it finds the runs just queued).
 */
export async function cancelExperiment(ctx: ExperimentContext, params: TExperimentParams): Promise<TExperiment> {
  const row = await inTransaction(ctx.db, async (tx) => {
    await findExperiment(tx, ctx.workspaceId, params);
    const [locked] = await tx.$queryRaw<{ status: string }[]>`
      SELECT status FROM experiments WHERE id = ${params.experimentId}::uuid FOR UPDATE`;
    if (locked?.status !== 'running') return findExperiment(tx, ctx.workspaceId, params);
    await cancelExperimentRuns(tx, { experimentId: params.experimentId, agentId: params.id });
    return tx.experiment.update({
      where: { id: params.experimentId },
      data: { status: 'cancelling', statusReason: 'Cancelled by a member' },
    });
  });
  const progress = await readProgress(ctx.db, [row.id]);
  return toExperiment(row, progress.get(row.id) as TExperimentProgress, ctx.box);
}

/** Deletes a finished experiment; one running or cancelling is a 409 (a cancel racing it keeps it). */
export async function deleteExperiment(ctx: ExperimentContext, params: TExperimentParams): Promise<void> {
  await inTransaction(ctx.db, async (tx) => {
    const row = await findExperiment(tx, ctx.workspaceId, params);
    const { count } = await tx.experiment.deleteMany({
      where: { id: row.id, status: { notIn: [...ACTIVE_STATUSES] } },
    });
    if (count === 0) {
      throw new AppError('conflict', 'The experiment is still running: cancel it, and delete it once it has stopped.');
    }
  });
}
