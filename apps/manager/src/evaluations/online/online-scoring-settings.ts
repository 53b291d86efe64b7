// The operator's online scoring settings: the manager env's fields, their reference entries, and the
// typed settings the routes and the scoring worker take.
import type { EnvDocs } from '@agentplane/server-kit';
import { z } from 'zod';

export const ONLINE_SCORING_ENV_FIELDS = {
  ONLINE_SCORING_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  ONLINE_SCORING_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  ONLINE_SCORING_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  ONLINE_SCORING_MAX_QUEUED_PER_AGENT: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  ONLINE_SCORING_MAX_SCORES_PER_AGENT: z.coerce.number().int().min(100).max(100_000_000).default(100_000),
};

type OnlineScoringEnv = {
  [K in keyof typeof ONLINE_SCORING_ENV_FIELDS]: z.infer<(typeof ONLINE_SCORING_ENV_FIELDS)[K]>;
};

/** A lease shorter than a judge's answer would let a second manager grade a run the first still grades. */
export function leaseOutlivesJudge(env: OnlineScoringEnv & { SCORER_JUDGE_TIMEOUT_MS: number }): boolean {
  return env.ONLINE_SCORING_LEASE_MS > env.SCORER_JUDGE_TIMEOUT_MS;
}

export type OnlineScoringSettings = {
  pollMs: number;
  leaseMs: number;
  /** Runs one manager grades at once. */
  concurrency: number;
  /** Sampled runs an agent may have waiting; more are counted as dropped. */
  maxQueuedPerAgent: number;
  /** Score rows kept per agent, newest first. */
  maxScoresPerAgent: number;
};

export function readOnlineScoringSettings(env: OnlineScoringEnv): OnlineScoringSettings {
  return {
    pollMs: env.ONLINE_SCORING_POLL_MS,
    leaseMs: env.ONLINE_SCORING_LEASE_MS,
    concurrency: env.ONLINE_SCORING_CONCURRENCY,
    maxQueuedPerAgent: env.ONLINE_SCORING_MAX_QUEUED_PER_AGENT,
    maxScoresPerAgent: env.ONLINE_SCORING_MAX_SCORES_PER_AGENT,
  };
}

export const ONLINE_SCORING_ENV_DOCS: EnvDocs<typeof ONLINE_SCORING_ENV_FIELDS> = {
  ONLINE_SCORING_POLL_MS: {
    description:
      'How often each manager replica looks for sampled runs to score (online scoring). See [Evaluations](/guide/evaluations#online-scoring)',
  },
  ONLINE_SCORING_LEASE_MS: {
    description:
      'How long a manager holds a run it is scoring; a manager that dies mid-way leaves the run to another after this. Must be longer than `SCORER_JUDGE_TIMEOUT_MS`',
  },
  ONLINE_SCORING_CONCURRENCY: {
    description: 'How many runs one manager replica scores at once',
  },
  ONLINE_SCORING_MAX_QUEUED_PER_AGENT: {
    description:
      'The most sampled runs one agent may have waiting to be scored; past it, sampled runs are not queued and are counted in the settings’ `dropped_runs`. Applied to every agent when a manager starts',
  },
  ONLINE_SCORING_MAX_SCORES_PER_AGENT: {
    description:
      'The most score rows (one per run and scorer) kept per agent; older ones are deleted. Scores also go with their run',
  },
};
