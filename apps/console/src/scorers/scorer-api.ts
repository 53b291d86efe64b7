// Trying scorers on one sample (POST /scorers/test), without running an agent.
import type { TScorer } from '@agentplane/contracts';
import { api, expectOk, type Schemas } from '../api/api-client';

export type ScorerResult = Schemas['ScorerResult'];
export type ScoringSample = Schemas['ScorerTestRequest']['sample'];

export async function testScorers(scorers: TScorer[], sample: ScoringSample): Promise<ScorerResult[]> {
  const answer = await expectOk(api.POST('/api/v1/scorers/test', { body: { scorers, sample } }));
  return answer.results;
}
