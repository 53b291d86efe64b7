// Many agents through the manager's API, as many clients would make them: a few requests in flight at
// once, so the platform's own create path (its role, its published config) runs for every one of them.
import type { ManagerClient } from '@agentplane/manager-client';

const IN_FLIGHT = 8;

/** Creates `count` mock-model agents named "Agent 0001"… and resolves once all exist. */
export async function createAgents(api: ManagerClient, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      await api.expect(201, 'POST', '/agents/', {
        name: `Agent ${String(next).padStart(4, '0')}`,
        framework: 'LLM',
        agent: { model: { provider: 'mock', name: 'echo' } },
        resources: { integration_ids: [], mcp_server_ids: [] },
      });
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}
