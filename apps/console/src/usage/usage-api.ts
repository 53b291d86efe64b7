// The manager's usage reports (GET /agents/{id}/usage, GET /usage), with the query keys they are cached
// under: an agent's under its own key, so what invalidates the agent's usage (a run ended) reaches them.
import { agentKeys } from '../agents/agent-api';
import { api, expectOk, type Schemas } from '../api/api-client';

export type UsageBucket = Schemas['AgentUsage']['bucket'];
export type UsageReport = Schemas['AgentUsage'];
export type WorkspaceUsageReport = Schemas['WorkspaceUsage'];

export const usageKeys = {
  agent: (agentId: string, bucket: UsageBucket) => [...agentKeys.usage(agentId), bucket] as const,
  workspace: (bucket: UsageBucket) => ['workspace-usage', bucket] as const,
};

export function getAgentUsage(agentId: string, bucket: UsageBucket): Promise<UsageReport> {
  return expectOk(api.GET('/api/v1/agents/{id}/usage', { params: { path: { id: agentId }, query: { bucket } } }));
}

export function getWorkspaceUsage(bucket: UsageBucket): Promise<WorkspaceUsageReport> {
  return expectOk(api.GET('/api/v1/usage', { params: { query: { bucket } } }));
}
