// The operator's experiment settings: the manager env's fields, their reference entries, and the typed
// settings the routes and the worker take.
import { EXPERIMENT_CONCURRENCY_MAX } from '@agentplane/contracts';
import type { EnvDocs } from '@agentplane/server-kit';
import { z } from 'zod';

export const EXPERIMENT_ENV_FIELDS = {
  EXPERIMENT_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  EXPERIMENT_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(EXPERIMENT_CONCURRENCY_MAX).default(16),
  EXPERIMENT_MAX_RUNS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  MAX_ACTIVE_EXPERIMENTS_PER_WORKSPACE: z.coerce.number().int().min(1).max(1_000).default(5),
  EXPERIMENTS_KEPT_PER_AGENT: z.coerce.number().int().min(1).max(10_000).default(50),
};

type ExperimentEnv = { [K in keyof typeof EXPERIMENT_ENV_FIELDS]: z.infer<(typeof EXPERIMENT_ENV_FIELDS)[K]> };

export type ExperimentSettings = {
  pollMs: number;
  maxConcurrency: number;
  maxRuns: number;
  maxActivePerWorkspace: number;
  keptPerAgent: number;
};

export function readExperimentSettings(env: ExperimentEnv): ExperimentSettings {
  return {
    pollMs: env.EXPERIMENT_POLL_MS,
    maxConcurrency: env.EXPERIMENT_MAX_CONCURRENCY,
    maxRuns: env.EXPERIMENT_MAX_RUNS,
    maxActivePerWorkspace: env.MAX_ACTIVE_EXPERIMENTS_PER_WORKSPACE,
    keptPerAgent: env.EXPERIMENTS_KEPT_PER_AGENT,
  };
}

const SEE = 'See [Evaluations](/guide/evaluations#experiments)';

export const EXPERIMENT_ENV_DOCS: EnvDocs<typeof EXPERIMENT_ENV_FIELDS> = {
  EXPERIMENT_POLL_MS: {
    description: `How often each manager replica's experiment worker looks for runs that ended and runs to queue (50 to 60000). Replicas share the experiments and never queue a run twice. ${SEE}`,
  },
  EXPERIMENT_MAX_CONCURRENCY: {
    description: `The most runs one experiment may have in flight at once (its \`concurrency\`, 1 to ${EXPERIMENT_CONCURRENCY_MAX}); a launch asking for more is a **422**. ${SEE}`,
  },
  EXPERIMENT_MAX_RUNS: {
    description: `The most runs one experiment may make (items × versions × repeats); a launch past it is a **422**. ${SEE}`,
  },
  MAX_ACTIVE_EXPERIMENTS_PER_WORKSPACE: {
    description: `How many experiments one workspace may have running (or cancelling) at once; a launch past it is a **422**. ${SEE}`,
  },
  EXPERIMENTS_KEPT_PER_AGENT: {
    description: `How many experiments are kept per agent: a launch deletes the oldest finished ones past it, with their results (their agent runs stay). ${SEE}`,
  },
};
