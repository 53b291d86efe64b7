// Experiments (issue 36): one dataset version run against some of an agent's versions, each (item,
// version, repeat) a background run pinned to its version, graded by the experiment's scorers. These
// are the launch body and the experiment as read back; its results, aggregates and comparison are in
// experiment-results.ts.
import { z } from 'zod';
import { ZPaginationQuery } from '../common/pagination.js';
import { ZIsoDateTime, ZResourceName, ZUuid } from '../common/primitives.js';
import { ZScorer, ZScorerList } from './scorer.js';

/** Agent versions one experiment compares. */
export const EXPERIMENT_VERSIONS_MAX_ITEMS = 10;
/** Runs of each (item, version). */
export const EXPERIMENT_REPEATS_MAX = 20;
/** Runs in flight at once; the operator's EXPERIMENT_MAX_CONCURRENCY may allow fewer. */
export const EXPERIMENT_CONCURRENCY_MAX = 100;
export const EXPERIMENT_CONCURRENCY_DEFAULT = 4;

export const EXPERIMENT_STATUSES = ['running', 'cancelling', 'cancelled', 'completed', 'failed'] as const;
export type TExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/** pending: not queued yet; queued: its run is queued or running; the other three are final. */
export const EXPERIMENT_RESULT_STATES = ['pending', 'queued', 'scored', 'failed', 'cancelled'] as const;
export type TExperimentResultState = (typeof EXPERIMENT_RESULT_STATES)[number];

/** An agent version (engine_configs.version) is a PostgreSQL bigint; anything past 2^53 is no version. */
export const ZExperimentAgentVersion = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** A dataset version is a PostgreSQL integer. */
const ZDatasetVersionNumber = z.number().int().min(1).max(2_147_483_647);

export const ZExperimentCreate = z
  .strictObject({
    name: ZResourceName.optional().meta({ description: 'Omitted: the dataset’s name and version, and the versions' }),
    dataset: ZUuid.meta({ description: 'A dataset of the agent’s workspace' }),
    dataset_version: ZDatasetVersionNumber.optional().meta({
      description:
        'The dataset version to run; omitted: its current one. A version never changes, so results stay comparable',
    }),
    agent_versions: z
      .array(ZExperimentAgentVersion)
      .min(1)
      .max(EXPERIMENT_VERSIONS_MAX_ITEMS)
      .refine((versions) => new Set(versions).size === versions.length, { message: 'Duplicate version' })
      .meta({
        description: 'Recorded versions of the agent (GET /agents/{id}/versions); each item runs on each of them',
      }),
    scorers: ZScorerList,
    repeats: z.number().int().min(1).max(EXPERIMENT_REPEATS_MAX).default(1).meta({
      description: 'Runs of each item on each version; with more than one, confidence intervals are over items',
    }),
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(EXPERIMENT_CONCURRENCY_MAX)
      .optional()
      .meta({
        description: `Runs in flight at once; omitted: ${EXPERIMENT_CONCURRENCY_DEFAULT} (or EXPERIMENT_MAX_CONCURRENCY when lower). Above EXPERIMENT_MAX_CONCURRENCY is a 422`,
      }),
  })
  .meta({
    id: 'ExperimentCreate',
    description: 'An experiment to launch: items × versions × repeats runs, at most EXPERIMENT_MAX_RUNS',
  });
export type TExperimentCreate = z.infer<typeof ZExperimentCreate>;
export type TExperimentCreateInput = z.input<typeof ZExperimentCreate>;

const ZCount = z.number().int().min(0);

export const ZExperimentProgress = z
  .strictObject({ pending: ZCount, queued: ZCount, scored: ZCount, failed: ZCount, cancelled: ZCount })
  .meta({ id: 'ExperimentProgress', description: 'Runs of the experiment in each state' });
export type TExperimentProgress = z.infer<typeof ZExperimentProgress>;

export const ZExperiment = z
  .strictObject({
    id: ZUuid,
    agent_id: ZUuid,
    name: z.string(),
    dataset_id: ZUuid.nullable().meta({ description: 'null once the dataset was deleted' }),
    dataset_version: z.number().int().min(1),
    agent_versions: z.array(ZExperimentAgentVersion),
    scorers: z.array(ZScorer).meta({ description: 'As launched; a judge’s API key shows as a mask' }),
    repeats: z.number().int().min(1),
    concurrency: z.number().int().min(1),
    status: z.enum(EXPERIMENT_STATUSES).meta({
      description:
        'running; cancelling (its runs are being stopped); cancelled, completed (every run is final) or failed (it could not go on: status_reason says why)',
    }),
    status_reason: z.string().nullable(),
    created_by: ZUuid.nullable().meta({ description: 'The member who launched it; null once they are deleted' }),
    item_count: z.number().int().min(0).meta({ description: 'Items of the dataset version' }),
    run_count: z.number().int().min(0).meta({ description: 'items × versions × repeats' }),
    progress: ZExperimentProgress,
    created_at: ZIsoDateTime,
    started_at: ZIsoDateTime.nullable().meta({ description: 'When its worker queued its first run' }),
    finished_at: ZIsoDateTime.nullable(),
  })
  .meta({ id: 'Experiment' });
export type TExperiment = z.infer<typeof ZExperiment>;

export const ZExperimentParams = z.strictObject({ id: ZUuid, experimentId: ZUuid });
export type TExperimentParams = z.infer<typeof ZExperimentParams>;

export const ZExperimentListQuery = ZPaginationQuery;
