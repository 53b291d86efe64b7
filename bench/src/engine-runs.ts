// Benchmark 4: /agent/run on one engine with the mock model (runs/s, time to first event), tracing off
// and on in turns, the way an operator turns it: the agent references an observability resource
// exporting to an OTLP receiver on loopback, or none. One engine for both, so that no difference
// between two processes passes for tracing's cost. Then 1,000 concurrent open streams against a model
// that never answers, on a fresh engine, so that its memory peak is the streams' own.
import { ManagerClient } from '@agentplane/manager-client';
import { startOtlpReceiver } from '@agentplane/testing';
import { type ContenderFigures, compareEngines, soleAgentRuns, timeToFirstEvent } from './engine-comparison.js';
import { currentRssMiB, MOCK_AGENT, peakRssMiB, startAgentEngine } from './engine-process.js';
import type { Service } from './service-process.js';
import { startStalledModel } from './stalled-model.js';
import { waitForConfigVersion } from './traced-config.js';

export type EngineRunsResult = {
  untraced: ContenderFigures;
  traced: ContenderFigures & { exportBatches: number };
  rounds: number;
  streams: { open: number; idleRssMiB: number; peakRssMiB: number };
};

// After a switch, the spans of the runs before it are flushed by the exporter being retired (at most a
// second's worth): given time to go before the next round starts, they are not counted against it.
const SETTLE_MS = 500;

/** Peak RSS of a fresh engine holding `streams` runs open on a model that never answers. */
async function measureOpenStreams(
  client: ManagerClient,
  managerUrl: string,
  streams: number,
): Promise<EngineRunsResult['streams']> {
  const stalled = await startStalledModel();
  let engine: Service | undefined;
  try {
    const started = await startAgentEngine(client, managerUrl, {
      ...MOCK_AGENT,
      name: 'open streams bench',
      agent: { model: { provider: 'openai', name: 'stalled', baseUrl: stalled.baseUrl } },
    });
    engine = started.engine;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const pid = engine.child.pid ?? 0;
    const idleRssMiB = await currentRssMiB(pid);
    const aborts = new AbortController();
    const url = `${engine.url}/agent/run`;
    const open = await Promise.all(
      Array.from({ length: streams }, () => timeToFirstEvent(url, started.headers, aborts.signal)),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const peak = await peakRssMiB(pid);
    aborts.abort();
    await Promise.allSettled(open.map(({ reader }) => reader.cancel()));
    return { open: open.length, idleRssMiB, peakRssMiB: peak };
  } finally {
    await engine?.stop();
    await stalled.close();
  }
}

export async function benchEngineRuns(options: {
  managerUrl: string;
  rounds: number;
  roundSeconds: number;
  streams: number;
  /** Tracing off on both sides (A/A): what the comparison then reports is the bench's own noise and bias. */
  control: boolean;
}): Promise<EngineRunsResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  const receiver = await startOtlpReceiver();
  let engine: Service | undefined;
  try {
    const exporter = await client.expect<{ id: string }>(201, 'POST', '/observability/', {
      name: 'bench receiver',
      observability: { provider: 'OTLP', endpoint: receiver.url, protocol: 'http/protobuf' },
    });
    const started = await startAgentEngine(client, options.managerUrl, MOCK_AGENT);
    engine = started.engine;
    const engineUrl = engine.url;
    const observe = (observabilityId: string | null) => async () => {
      const patched = await client.expect<{ engine_config_version: number }>(
        200,
        'PATCH',
        `/agents/${started.agentId}`,
        { ...MOCK_AGENT, resources: { observability_id: observabilityId } },
      );
      await waitForConfigVersion(engineUrl, patched.engine_config_version);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    };
    const figures = await compareEngines(
      {
        untraced: { url: engineUrl, runs: soleAgentRuns(started.headers), prepare: observe(null) },
        traced: {
          url: engineUrl,
          runs: soleAgentRuns(started.headers),
          prepare: observe(options.control ? null : exporter.id),
        },
      },
      // Many short rounds: tracing's cost is near this machine's drift, which only adjacent pairs cancel.
      // 300 timed runs a round: with 100, one pair's p50 rise varied by over a millisecond with tracing
      // off on both sides.
      { rounds: options.rounds, seconds: options.roundSeconds, firstEventRuns: 300 },
    );
    // Stopping the engine flushes its last spans, so the receiver has them all.
    await engine.stop();
    const exportBatches = receiver.exports.length;
    if (exportBatches === 0 && !options.control) throw new Error('the traced rounds exported no spans');
    return {
      untraced: figures.untraced,
      traced: { ...figures.traced, exportBatches },
      rounds: options.rounds,
      streams: await measureOpenStreams(client, options.managerUrl, options.streams),
    };
  } finally {
    await engine?.stop();
    await receiver.close();
  }
}
