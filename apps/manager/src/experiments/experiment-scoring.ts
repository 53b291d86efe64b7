// An experiment's scorers: checked when it is launched (a mask stands for nothing stored, a judge at a
// refused address or a scorer that does not compile is a 422), and compiled by the worker to grade its
// runs, each model judge calling out through the manager's egress policy with its key opened from the
// platform box only then.
import { mapScorerSecrets, type TScorer } from '@agentplane/contracts';
import type { SecretBox } from '@agentplane/db';
import type { EgressAllowList, EgressPolicy, Logger } from '@agentplane/server-kit';
import { createManagerEgressPolicy } from '../egress/manager-egress-policy.js';
import { compileScorers, type ScoreSample } from '../evaluations/scorers/compile-scorers.js';
import { refuseJudgesAtPrivateAddresses } from '../evaluations/scorers/scorer-routes.js';
import { keepMaskedSecrets } from '../secrets/keep-masked-secrets.js';

const identity = (value: string) => value;

/** The scorers of a launch, in plaintext, or a 422 naming what cannot be used. */
export function checkScorers(sent: readonly TScorer[], allow: EgressAllowList, logger: Logger): TScorer[] {
  const scorers = sent.map((scorer, index) =>
    keepMaskedSecrets({ sent: scorer, stored: undefined, mapSecrets: mapScorerSecrets, at: ['scorers', index] }),
  );
  refuseJudgesAtPrivateAddresses(scorers, allow);
  // Compiling calls no judge: the policy is only there to be closed.
  const egress = createManagerEgressPolicy(allow, logger, 'a model judge');
  try {
    compileScorers(scorers, { judge: { egress, timeoutMs: 1, openSecret: identity } }, ['scorers']);
  } finally {
    void egress.close();
  }
  return scorers;
}

export type ExperimentGrader = { score: ScoreSample; close: () => Promise<void> };

/** Grades runs with an experiment's stored scorers (secrets sealed with the platform key). */
export function createGrader(
  stored: readonly TScorer[],
  deps: { box: SecretBox; egressAllow: EgressAllowList; logger: Logger; judgeTimeoutMs: number },
): ExperimentGrader {
  const egress: EgressPolicy = createManagerEgressPolicy(deps.egressAllow, deps.logger, 'a model judge');
  const score = compileScorers(
    stored,
    { judge: { egress, timeoutMs: deps.judgeTimeoutMs, openSecret: deps.box.open } },
    ['scorers'],
  );
  return { score, close: () => egress.close() };
}
