// The operator's scorer settings: the manager env's fields, their reference entries, and the typed
// settings the scorer routes take.
import type { EnvDocs } from '@agentplane/server-kit';
import { z } from 'zod';

export const SCORER_ENV_FIELDS = {
  SCORER_JUDGE_TIMEOUT_MS: z.coerce.number().int().min(10).max(300_000).default(30_000),
  SCORER_TESTS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
};

type ScorerEnv = { [K in keyof typeof SCORER_ENV_FIELDS]: z.infer<(typeof SCORER_ENV_FIELDS)[K]> };

export type ScorerSettings = { judgeTimeoutMs: number; testsPerMinute: number };

export function readScorerSettings(env: ScorerEnv): ScorerSettings {
  return { judgeTimeoutMs: env.SCORER_JUDGE_TIMEOUT_MS, testsPerMinute: env.SCORER_TESTS_PER_MINUTE };
}

export const SCORER_ENV_DOCS: EnvDocs<typeof SCORER_ENV_FIELDS> = {
  SCORER_JUDGE_TIMEOUT_MS: {
    description:
      'How long the manager waits for a `model_judge` scorer’s model to answer (the whole answer, at most 256 KiB); past it the result has no score and says why. See [Evaluations](/guide/evaluations)',
  },
  SCORER_TESTS_PER_MINUTE: {
    description:
      'How many `POST /api/v1/scorers/test` requests one workspace may make per minute (across manager replicas); more get a **429** with `Retry-After`',
  },
};
