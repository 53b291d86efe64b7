// The agent calls the pages share, with the query keys they are cached under.
import type { QueryClient } from '@tanstack/react-query';
import { api, expectOk, expectPage, type Schemas } from '../api/api-client';
import { RESOURCE_KINDS } from '../resources/resource-kinds';

export type AgentBody = Schemas['AgentCreate'];

export const AGENTS_KEY = 'agents';
const masked = { secrets: 'masked' as const };

export const agentKeys = {
  one: (id: string, reveal: boolean) => [AGENTS_KEY, id, reveal] as const,
  runs: (id: string) => [AGENTS_KEY, id, 'runs'] as const,
  usage: (id: string) => [AGENTS_KEY, id, 'usage'] as const,
};

/**
 * After an agent is created, changed or deleted: the agents are read again, and so is everything about
 * the resources, whose agent_count the write may have changed (their lists, their pages, the form's
 * pickers). What no page shows now is dropped rather than marked stale, so that the next visit shows
 * the server's counts, not the cached ones while it refetches; what a page shows is read again at once.
 */
export async function refreshAfterAgentWrite(queryClient: QueryClient): Promise<void> {
  for (const kind of RESOURCE_KINDS) queryClient.removeQueries({ queryKey: [kind.id], type: 'inactive' });
  await Promise.all([
    ...RESOURCE_KINDS.map((kind) => queryClient.invalidateQueries({ queryKey: [kind.id] })),
    queryClient.invalidateQueries({ queryKey: [AGENTS_KEY] }),
  ]);
}

export type AgentListItem = Awaited<ReturnType<typeof listAgents>>['items'][number];

export function listAgents(offset: number, limit: number) {
  return expectPage(
    api.GET('/api/v1/agents/', { params: { query: { limit: String(limit), offset: String(offset), ...masked } } }),
  );
}

export type Agent = Awaited<ReturnType<typeof getAgent>>;

export function getAgent(id: string, reveal: boolean) {
  return expectOk(api.GET('/api/v1/agents/{id}', { params: { path: { id }, query: reveal ? {} : masked } }));
}

export function createAgent(body: AgentBody) {
  return expectOk(api.POST('/api/v1/agents/', { body, params: { query: masked } }));
}

export function updateAgent(id: string, body: AgentBody) {
  return expectOk(api.PATCH('/api/v1/agents/{id}', { params: { path: { id }, query: masked }, body }));
}

export function deleteAgent(id: string) {
  return expectOk(api.DELETE('/api/v1/agents/{id}', { params: { path: { id } } }));
}

/** A short-lived bearer token for the agent's engine, minted by the manager for the signed-in user. */
export function mintAgentToken(id: string) {
  return expectOk(api.POST('/api/v1/agents/{id}/token', { params: { path: { id } } }));
}

export function listAgentRuns(id: string) {
  return expectPage(api.GET('/api/v1/agents/{id}/runs', { params: { path: { id }, query: { limit: '20' } } }));
}

export function issueEngineCredentials(id: string) {
  return expectOk(api.POST('/api/v1/agents/{id}/engine-credentials', { params: { path: { id } } }));
}
