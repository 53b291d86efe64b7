// Benchmark 3: from a PATCH sent to the manager until an engine serves the new config version,
// with the manager's NOTIFY and with polling alone (ENGINE_CONFIG_LISTEN=false).
import { ManagerClient } from '@agentplane/manager-client';
import { startEngine } from './engine-process.js';
import { percentile } from './load.js';
import { issueEngineCredentials } from './platform-operator.js';
import type { Service } from './service-process.js';
import { whatsapp } from './whatsapp-integration.js';

export type PropagationResult = {
  pollMs: number;
  notify: { p50Ms: number; p99Ms: number };
  polling: { p50Ms: number; p99Ms: number };
};

async function servedVersion(engine: Service, token: string): Promise<number> {
  const response = await fetch(`${engine.url}/agent/config`, { headers: { Authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return Number(response.headers.get('x-engine-config-version'));
}

async function timeUntilServed(engine: Service, token: string, version: number, startedAt: number): Promise<number> {
  const deadline = startedAt + 10_000;
  while (performance.now() < deadline) {
    if ((await servedVersion(engine, token)) >= version) return performance.now() - startedAt;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`version ${version} was not served within 10 s`);
}

export async function benchConfigPropagation(options: {
  managerUrl: string;
  pollMs: number;
  rounds: number;
}): Promise<PropagationResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const integration = await client.expect<{ id: string }>(201, 'POST', '/integrations/', whatsapp());
  const agent = await client.expect<{ id: string; engine_config_version: number }>(201, 'POST', '/agents/', {
    name: 'propagation bench',
    framework: 'LLM',
    agent: { model: { provider: 'mock', name: 'echo' } },
    resources: { integration_ids: [integration.id] },
  });
  const { access_token: token } = await client.expect<{ access_token: string }>(
    201,
    'POST',
    `/agents/${agent.id}/token`,
  );
  const common = { credentials: await issueEngineCredentials(agent.id), managerIssuer: options.managerUrl };
  const env = { ENGINE_CONFIG_POLL_MS: String(options.pollMs) };
  const listening = await startEngine({ ...common, env });
  const polling = await startEngine({ ...common, env: { ...env, ENGINE_CONFIG_LISTEN: 'false' } });
  try {
    const delays = { notify: [] as number[], polling: [] as number[] };
    for (let round = 1; round <= options.rounds; round++) {
      // A random pause, so that PATCHes do not fall into step with the polling engine's timer.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * options.pollMs));
      const startedAt = performance.now();
      await client.expect(200, 'PATCH', `/integrations/${integration.id}`, whatsapp(String(2_000_000 + round)));
      const version = agent.engine_config_version + round;
      // One prober at a time: two loops fetching every 2 ms would take CPU from the engines they time.
      // Probing the polling engine second can only make its figure later by the NOTIFY delay, a few
      // per cent of what polling takes.
      const viaNotify = await timeUntilServed(listening, token, version, startedAt);
      const viaPolling = await timeUntilServed(polling, token, version, startedAt);
      delays.notify.push(viaNotify);
      delays.polling.push(viaPolling);
    }
    const summary = (values: number[]) => ({ p50Ms: percentile(values, 0.5), p99Ms: percentile(values, 0.99) });
    return { pollMs: options.pollMs, notify: summary(delays.notify), polling: summary(delays.polling) };
  } finally {
    await Promise.all([listening.stop(), polling.stop()]);
  }
}
