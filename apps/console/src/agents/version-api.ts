// An agent's versions: its history, what changed between two versions, and rolling back to one.
import { api, expectOk, expectPage } from '../api/api-client';

export const versionKeys = {
  list: (agentId: string) => ['agents', agentId, 'versions'] as const,
  diff: (agentId: string, version: number, against: number) =>
    ['agents', agentId, 'versions', version, 'diff', against] as const,
};

export async function listAgentVersions(id: string, offset: number, limit: number) {
  const page = await expectPage(
    api.GET('/api/v1/agents/{id}/versions', {
      params: { path: { id }, query: { limit: String(limit), offset: String(offset) } },
    }),
  );
  // The table keys rows by id: a version's number is unique within its agent.
  return { ...page, items: page.items.map((version) => ({ ...version, id: String(version.version) })) };
}

export type AgentVersionRow = Awaited<ReturnType<typeof listAgentVersions>>['items'][number];

export function diffAgentVersions(id: string, version: number, against: number) {
  return expectOk(
    api.GET('/api/v1/agents/{id}/versions/{version}/diff', {
      params: { path: { id, version: String(version) }, query: { against: String(against) } },
    }),
  );
}

export function rollbackAgent(id: string, version: number, message: string) {
  const body = message.trim() === '' ? { version } : { version, message: message.trim() };
  return expectOk(
    api.POST('/api/v1/agents/{id}/rollback', { params: { path: { id }, query: { secrets: 'masked' } }, body }),
  );
}
