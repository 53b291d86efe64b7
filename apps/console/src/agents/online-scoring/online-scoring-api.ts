// An agent's online scoring settings over the API (GET/PUT /agents/{id}/online-scoring), cached below the
// agent's key.
import { api, expectOk, type Schemas } from '../../api/api-client';
import { AGENTS_KEY } from '../agent-api';

export type OnlineScoring = Schemas['OnlineScoring'];
export type OnlineScoringBody = Schemas['OnlineScoringUpdate'];

export const onlineScoringKey = (agentId: string) => [AGENTS_KEY, agentId, 'online-scoring'] as const;

export function getOnlineScoring(agentId: string) {
  return expectOk(api.GET('/api/v1/agents/{id}/online-scoring', { params: { path: { id: agentId } } }));
}

export function putOnlineScoring(agentId: string, body: OnlineScoringBody) {
  return expectOk(api.PUT('/api/v1/agents/{id}/online-scoring', { params: { path: { id: agentId } }, body }));
}
