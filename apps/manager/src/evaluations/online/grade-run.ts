// One sampled run graded by its agent's online scorers as they are stored now: the run observed from
// its records, with no expectation (a scorer that needs one gives no score), each scorer's result
// bounded for the runs list. Nothing here holds a transaction: a judge may take its whole timeout.
import {
  RUN_SCORE_REASON_MAX_LENGTH,
  type TScorer,
  type TScorerResult,
  type TScoringSample,
} from '@agentplane/contracts';
import type { Db, SecretBox } from '@agentplane/db';
import type { EgressPolicy } from '@agentplane/server-kit';
import { readRunObservation } from '../run-observation.js';
import { compileScorers } from '../scorers/compile-scorers.js';

export type GradeDependencies = { db: Db; box: SecretBox; egress: EgressPolicy; judgeTimeoutMs: number };

/** No score, and why, for every scorer: what a run gets when its grading as a whole failed. */
function ungraded(scorers: readonly TScorer[], reason: string): TScorerResult[] {
  return scorers.map((scorer) => ({ name: scorer.name, kind: scorer.kind, score: null, reason }));
}

function bounded(result: TScorerResult): TScorerResult {
  return { ...result, reason: result.reason.slice(0, RUN_SCORE_REASON_MAX_LENGTH) };
}

/** The run's results, or none when it is no longer to be graded (scoring disabled, or the run gone). */
export async function gradeRun(deps: GradeDependencies, agentId: string, runId: string): Promise<TScorerResult[]> {
  const settings = await deps.db.onlineScoringSettings.findUnique({
    where: { agentId },
    select: { enabled: true, scorers: true },
  });
  if (settings === null || !settings.enabled) return [];
  const run = await readRunObservation(deps.db, agentId, runId);
  if (run === undefined) return [];
  const scorers = settings.scorers as TScorer[];
  const sample: TScoringSample = { input: run.input, observation: run.observation, expected: {} };
  try {
    // Stored scorers were compiled when written; the judge's key is opened only when it is called.
    const score = compileScorers(
      scorers,
      { judge: { egress: deps.egress, timeoutMs: deps.judgeTimeoutMs, openSecret: (value) => deps.box.open(value) } },
      ['scorers'],
    );
    return (await score(sample)).map(bounded);
  } catch (error) {
    return ungraded(scorers, `The run could not be graded: ${(error as Error).message}`.slice(0, 500));
  }
}
