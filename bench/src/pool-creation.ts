// Benchmark 10: an agent answers as soon as it is created, and stops answering as soon as it is
// deleted, with no operator action in between. A manager whose default placement is a pool (as
// `pnpm start` and the compose file run it) and that pool's engine, started with the credentials a
// platform operator asks the manager for; then, one agent at a time, a tenant creates an agent through
// the API and sends it runs until one streams (the time from the create response to its first event),
// then some of them are changed (the time from sending the PATCH until the pool serves the new
// version, as benchmark 3 times a dedicated engine), and all deleted (the time from the delete
// response until the pool answers 404 for the agent's thread list).
import { randomBytes } from 'node:crypto';
import { findFreePort } from '@agentplane/db/embedded';
import { ManagerClient } from '@agentplane/manager-client';
import { startBenchManager } from './bench-manager.js';
import { drainStream, runBody } from './engine-comparison.js';
import { MOCK_AGENT, type PoolCredentials, runHeaders, startPoolEngine } from './engine-process.js';
import { percentile } from './load.js';
import { signUpOperator } from './platform-operator.js';
import type { Service } from './service-process.js';

export type Latencies = { p50Ms: number; p99Ms: number; maxMs: number; retries: number };

export type PoolCreationResult = {
  agents: number;
  firstRun: Latencies;
  patches: number;
  patched: Latencies;
  deleted: Latencies;
};

// How soon a request that found no agent yet is sent again: a bound on what the figure overstates.
const RETRY_MS = 10;
// A new version is looked for as benchmark 3 looks: every 2 ms, its bound being 100 ms.
const SERVED_RETRY_MS = 2;
// Past this, the agent is taken not to answer at all, and the bench stops with an error.
const GIVE_UP_MS = 30_000;

export async function benchPoolCreation(options: {
  databaseUrl: string;
  platformKey: string;
  agents: number;
  patches: number;
}): Promise<PoolCreationResult> {
  const pool = `bench_${randomBytes(6).toString('hex')}`;
  const [managerPort, enginePort] = [await findFreePort(), await findFreePort()];
  const manager = await startBenchManager({
    databaseUrl: options.databaseUrl,
    secretsKey: options.platformKey,
    port: managerPort,
    env: { ENGINE_POOLS: `${pool}=http://127.0.0.1:${enginePort}`, DEFAULT_ENGINE_POOL: pool },
  });
  let engine: Service | undefined;
  try {
    const operator = await signUpOperator(manager.url, options.databaseUrl);
    const issued = await operator.expect<{ pool: string; database_url: string; pool_key: string }>(
      201,
      'POST',
      `/engine-pools/${pool}/credentials`,
    );
    const credentials: PoolCredentials = {
      ENGINE_POOL: issued.pool,
      DATABASE_URL: issued.database_url,
      ENGINE_POOL_KEY: issued.pool_key,
    };
    engine = await startPoolEngine({ credentials, managerIssuer: manager.url, port: enginePort });
    const tenant = await ManagerClient.signUp(manager.url);
    const firstRuns: Timed[] = [];
    const created: { id: string; headers: Record<string, string> }[] = [];
    for (let index = 0; index < options.agents; index++) {
      const { id } = await tenant.expect<{ id: string }>(201, 'POST', '/agents/', {
        ...MOCK_AGENT,
        name: `created ${index}`,
      });
      const since = performance.now();
      const headers = await runHeaders(tenant, id);
      firstRuns.push(await firstStreamedRun(`${engine.url}/agents/${id}/agent/run`, headers, since));
      created.push({ id, headers });
    }
    const patches: Timed[] = [];
    for (const { id, headers } of created.slice(0, options.patches)) {
      // A random pause, so that PATCHes do not fall into step with the engine's placement polls.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 1000));
      const since = performance.now();
      const { engine_config_version: version } = await tenant.expect<{ engine_config_version: number }>(
        200,
        'PATCH',
        `/agents/${id}`,
        { ...MOCK_AGENT, name: `patched ${id}` },
      );
      patches.push(await untilServed(`${engine.url}/agents/${id}/agent/config`, headers, version, since));
    }
    const deletions: Timed[] = [];
    for (const { id, headers } of created) {
      const threads = `${engine.url}/agents/${id}/agent/threads`;
      await tenant.expect(204, 'DELETE', `/agents/${id}`);
      deletions.push(await untilStatus(threads, { headers }, 404, performance.now()));
    }
    return {
      agents: options.agents,
      firstRun: latencies(firstRuns),
      patches: patches.length,
      patched: latencies(patches),
      deleted: latencies(deletions),
    };
  } finally {
    await engine?.stop();
    await manager.stop();
  }
}

type Timed = { ms: number; retries: number };

/** Sends the run until it streams; the time from `since` to its first event. */
async function firstStreamedRun(url: string, headers: Record<string, string>, since: number): Promise<Timed> {
  for (let retries = 0; ; retries++) {
    const response = await fetch(url, { method: 'POST', headers, body: runBody('Are you there yet?') });
    const reader = response.body?.getReader();
    if (response.status === 200 && reader !== undefined) {
      await reader.read();
      const ms = performance.now() - since;
      await drainStream(reader);
      return { ms, retries };
    }
    await response.body?.cancel();
    // Not placed there yet (404), or placed and still loading (503): asked again, as a client would.
    if (response.status !== 404 && response.status !== 503) throw new Error(`the run answered ${response.status}`);
    await waitBeforeRetry(since);
  }
}

/** Reads the agent's config until the pool serves `version`; the time from `since`. */
async function untilServed(
  url: string,
  headers: Record<string, string>,
  version: number,
  since: number,
): Promise<Timed> {
  for (let retries = 0; ; retries++) {
    const response = await fetch(url, { headers });
    await response.body?.cancel();
    if (Number(response.headers.get('x-engine-config-version')) >= version) {
      return { ms: performance.now() - since, retries };
    }
    await waitBeforeRetry(since, SERVED_RETRY_MS);
  }
}

/** Sends the request until it answers `status`; the time from `since`. */
async function untilStatus(url: string, init: RequestInit, status: number, since: number): Promise<Timed> {
  for (let retries = 0; ; retries++) {
    const response = await fetch(url, init);
    await response.body?.cancel();
    if (response.status === status) return { ms: performance.now() - since, retries };
    await waitBeforeRetry(since);
  }
}

async function waitBeforeRetry(since: number, ms = RETRY_MS): Promise<void> {
  if (performance.now() - since > GIVE_UP_MS) throw new Error(`no answer within ${GIVE_UP_MS} ms`);
  await new Promise((resolve) => setTimeout(resolve, ms));
}

function latencies(timed: Timed[]): Latencies {
  const times = timed.map((one) => one.ms);
  return {
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    maxMs: Math.max(...times),
    retries: timed.reduce((sum, one) => sum + one.retries, 0),
  };
}
