// Benchmark 2: PATCH of a resource that 100 agents reference, each republishing its engine config.
import { ManagerClient } from '@agentplane/manager-client';
import { percentile } from './load.js';
import { whatsapp } from './whatsapp-integration.js';

export type FanoutResult = { agents: number; patches: number; p50Ms: number; p99Ms: number };

export async function benchResourceFanout(options: {
  managerUrl: string;
  agents: number;
  patches: number;
}): Promise<FanoutResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const integration = await client.expect<{ id: string }>(201, 'POST', '/integrations/', whatsapp());
  for (let index = 0; index < options.agents; index++) {
    await client.expect(201, 'POST', '/agents/', {
      name: `bench agent ${index}`,
      framework: 'LLM',
      agent: { model: { provider: 'mock', name: 'echo' } },
      resources: { integration_ids: [integration.id] },
    });
  }
  const latencies: number[] = [];
  for (let patch = 0; patch < options.patches; patch++) {
    const started = performance.now();
    // A new value each time, so that every PATCH really republishes all the configs.
    await client.expect(200, 'PATCH', `/integrations/${integration.id}`, whatsapp(String(1_000_000 + patch)));
    latencies.push(performance.now() - started);
  }
  return {
    agents: options.agents,
    patches: options.patches,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}
