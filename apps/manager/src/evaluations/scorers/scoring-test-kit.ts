// Test helpers of the scorer suites: a scorer parsed as a request would be (defaults applied), graded
// on one sample through the library's entry, with a real egress policy for judges.
import { type TScorerResult, type TScoringSampleInput, ZScorer, ZScoringSample } from '@agentplane/contracts';
import {
  createEgressPolicy,
  type EgressPolicy,
  LOOPBACK_EGRESS_ALLOW,
  NO_EGRESS_ALLOWED,
  ZEgressAllowList,
} from '@agentplane/server-kit';
import { compileScorers } from './compile-scorers.js';

export type ScoringKit = {
  egress: EgressPolicy;
  /** `scorer` as a client would send it (parsed here, defaults applied). */
  grade: (scorer: object, sample: TScoringSampleInput) => Promise<TScorerResult>;
  close: () => Promise<void>;
};

/** `loopback`: judges on this machine are allowed, as the fake OpenAI server needs. */
export function createScoringKit({ loopback = false, timeoutMs = 5_000 } = {}): ScoringKit {
  const egress = createEgressPolicy({
    allow: loopback ? ZEgressAllowList.parse(LOOPBACK_EGRESS_ALLOW) : NO_EGRESS_ALLOWED,
    onRefused: () => undefined,
  });
  const judge = { egress, timeoutMs, openSecret: (value: string) => value };
  return {
    egress,
    grade: async (scorer, sample) => {
      const score = compileScorers([ZScorer.parse(scorer)], { judge }, ['scorers']);
      const [result] = await score(ZScoringSample.parse(sample));
      if (result === undefined) throw new Error('no result');
      return result;
    },
    close: () => egress.close(),
  };
}

/** A sample whose run replied `reply` (null: no reply), with whatever else is given. */
export function replied(
  reply: string | null,
  more: Partial<TScoringSampleInput['observation']> = {},
  expected: TScoringSampleInput['expected'] = {},
): TScoringSampleInput {
  return { observation: { reply, ...more }, expected };
}
