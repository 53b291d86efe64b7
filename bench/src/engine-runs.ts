// Benchmark 4: /agent/run on one engine with the mock model (runs/s, time to first event), without
// tracing and then with its spans exported to a local OTLP receiver, and 1,000 concurrent open streams
// against a model that never answers (peak RSS of the engine).
import { ManagerClient } from '@agentplane/manager-client';
import { makeRunAgentInput, startOtlpReceiver } from '@agentplane/testing';
import { currentRssMiB, peakRssMiB, startEngine } from './engine-process.js';
import { type LoadResult, percentile, runLoad } from './load.js';
import { startStalledModel } from './stalled-model.js';
import { waitForConfigVersion } from './traced-config.js';

export type RunsMeasure = { load: LoadResult; firstEvent: { runs: number; p50Ms: number; p99Ms: number } };

export type EngineRunsResult = RunsMeasure & {
  /** The same load with every run traced and its spans exported (batched) to a receiver on loopback. */
  traced: RunsMeasure & { exportBatches: number };
  streams: { open: number; idleRssMiB: number; peakRssMiB: number };
};

const runBody = (content: string) => JSON.stringify(makeRunAgentInput(content));

/** Milliseconds from sending a run until the first bytes of its event stream arrive. */
export async function timeToFirstEvent(
  url: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
  body = runBody('How fast is the first event?'),
) {
  const startedAt = performance.now();
  const response = await fetch(url, { method: 'POST', headers, body, signal });
  const reader = response.body?.getReader();
  if (!reader || response.status !== 200) throw new Error(`run answered ${response.status}`);
  await reader.read();
  return { elapsed: performance.now() - startedAt, reader };
}

export async function inBatches(total: number, concurrency: number, task: () => Promise<void>): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      await task();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const TRACING_ROUNDS = 4;
const FIRST_EVENTS_PER_ROUND = 200;

/** The median round by runs/s, with the medians of its time-to-first-event figures over the rounds. */
function medianOf(rounds: RunsMeasure[]): RunsMeasure {
  const byRate = [...rounds].sort((a, b) => a.load.requestsPerSecond - b.load.requestsPerSecond);
  const middle = byRate[Math.floor(byRate.length / 2)] as RunsMeasure;
  const median = (values: number[]) => percentile(values, 0.5);
  return {
    load: middle.load,
    firstEvent: {
      runs: rounds.reduce((sum, round) => sum + round.firstEvent.runs, 0),
      p50Ms: median(rounds.map((round) => round.firstEvent.p50Ms)),
      p99Ms: median(rounds.map((round) => round.firstEvent.p99Ms)),
    },
  };
}

/** Runs/s under 20 connections, then the time to first event of runs sent 10 at a time. */
async function measureRuns(
  url: string,
  headers: Record<string, string>,
  durationSeconds: number,
): Promise<RunsMeasure> {
  // Every run is a new conversation, as with many users: one shared thread would make every run wait
  // for the previous one's append and read an ever longer history.
  await runLoad({ url, method: 'POST', headers, body: () => runBody('warm up'), connections: 10, durationSeconds: 2 });
  const load = await runLoad({
    url,
    method: 'POST',
    headers,
    body: () => runBody('Hello, how are you today?'),
    connections: 20,
    durationSeconds,
  });
  const firstEvents: number[] = [];
  await inBatches(FIRST_EVENTS_PER_ROUND, 10, async () => {
    const { elapsed, reader } = await timeToFirstEvent(url, headers);
    firstEvents.push(elapsed);
    while (!(await reader.read()).done) {
      // drain the rest of the run
    }
  });
  return {
    load,
    firstEvent: { runs: firstEvents.length, p50Ms: percentile(firstEvents, 0.5), p99Ms: percentile(firstEvents, 0.99) },
  };
}

export async function benchEngineRuns(options: {
  managerUrl: string;
  durationSeconds: number;
  streams: number;
}): Promise<EngineRunsResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const mock = { name: 'runs bench', framework: 'LLM', agent: { model: { provider: 'mock', name: 'echo' } } };
  const agent = await client.expect<{ id: string }>(201, 'POST', '/agents/', mock);
  const { access_token: token } = await client.expect<{ access_token: string }>(
    201,
    'POST',
    `/agents/${agent.id}/token`,
  );
  const engine = await startEngine({
    credentials: await client.issueEngineCredentials(agent.id),
    managerIssuer: options.managerUrl,
  });
  const [stalled, receiver] = await Promise.all([startStalledModel(), startOtlpReceiver()]);
  const url = `${engine.url}/agent/run`;
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  try {
    // Off and on take turns, round after round, and each figure is the median of its rounds: this
    // machine's throughput drifts from minute to minute, which a single off-then-on pair would measure.
    const untracedRounds: RunsMeasure[] = [];
    const tracedRounds: RunsMeasure[] = [];
    const roundSeconds = Math.max(2, Math.round(options.durationSeconds / TRACING_ROUNDS));
    const exporter = await client.expect<{ id: string }>(201, 'POST', '/observability/', {
      name: 'bench receiver',
      observability: { provider: 'OTLP', endpoint: receiver.url, protocol: 'http/protobuf' },
    });
    // Tracing goes on and off the way an operator turns it: the agent references the resource or not.
    const observe = async (observabilityId: string | null) => {
      const patched = await client.expect<{ engine_config_version: number }>(200, 'PATCH', `/agents/${agent.id}`, {
        ...mock,
        resources: { observability_id: observabilityId },
      });
      await waitForConfigVersion(engine.url, patched.engine_config_version);
    };
    for (let round = 0; round < TRACING_ROUNDS; round++) {
      await observe(null);
      untracedRounds.push(await measureRuns(url, headers, roundSeconds));
      await observe(exporter.id);
      tracedRounds.push(await measureRuns(url, headers, roundSeconds));
    }
    const untraced = medianOf(untracedRounds);
    const tracedRuns = medianOf(tracedRounds);

    // Now a model that never answers: every run stays open, waiting on it.
    await client.expect(200, 'PATCH', `/agents/${agent.id}`, {
      ...mock,
      agent: { model: { provider: 'openai', name: 'stalled', baseUrl: stalled.baseUrl } },
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const idleRssMiB = await currentRssMiB(engine.child.pid ?? 0);
    const aborts = new AbortController();
    const open = await Promise.all(
      Array.from({ length: options.streams }, () => timeToFirstEvent(url, headers, aborts.signal)),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const peak = await peakRssMiB(engine.child.pid ?? 0);
    aborts.abort();
    await Promise.allSettled(open.map(({ reader }) => reader.cancel()));
    return {
      ...untraced,
      traced: { ...tracedRuns, exportBatches: receiver.exports.length },
      streams: { open: open.length, idleRssMiB, peakRssMiB: peak },
    };
  } finally {
    await Promise.all([stalled.close(), receiver.close()]);
    await engine.stop();
  }
}
