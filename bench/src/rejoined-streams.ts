// Benchmark 6: rejoining runs through GET /agent/runs/{id}/stream. Latency: from the request to the
// first replayed event, for finished runs, one rejoin at a time. Concurrency: 1,000 rejoined streams
// held open on one engine, following runs that wait on a model that never answers, and the engine's
// resident memory while they are open, and the database transactions per second meanwhile: the cost
// of followers that have nothing new to read.
import { makeRunAgentInput } from '@agentplane/testing';
import { countTransactions } from './database-activity.js';
import { currentRssMiB, peakRssMiB } from './engine-process.js';
import { percentile } from './load.js';
import type { Service } from './service-process.js';

/** Milliseconds from asking to rejoin a run until the first bytes of its replay arrive. */
async function timeToFirstReplayedEvent(engineUrl: string, runId: string, headers: Record<string, string>) {
  const startedAt = performance.now();
  const response = await fetch(`${engineUrl}/agent/runs/${runId}/stream`, { headers });
  const reader = response.body?.getReader();
  if (!reader || response.status !== 200) throw new Error(`rejoin answered ${response.status}`);
  await reader.read();
  return { elapsed: performance.now() - startedAt, reader };
}

export async function benchRejoinLatency(options: {
  engineUrl: string;
  headers: Record<string, string>;
  runIds: string[];
}): Promise<{ rejoins: number; p50Ms: number; p99Ms: number }> {
  const latencies: number[] = [];
  for (const runId of options.runIds) {
    const { elapsed, reader } = await timeToFirstReplayedEvent(options.engineUrl, runId, options.headers);
    latencies.push(elapsed);
    await reader.cancel();
  }
  return { rejoins: latencies.length, p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99) };
}

export type RejoinedStreamsResult = {
  streams: number;
  runs: number;
  idleRssMiB: number;
  openRssMiB: number;
  peakRssMiB: number;
  /** Database transactions per second while every stream was open and had nothing new (the whole database). */
  idleTransactionsPerSecond: number;
  firstEventP50Ms: number;
  firstEventP99Ms: number;
};

/**
 * `streams` rejoins spread over `runs` runs of `engine`, whose agent's model never answers: each run
 * was started with onDisconnect "continue" and its client left, so only the followers remain.
 */
export async function benchRejoinedStreams(options: {
  engine: Service;
  databaseUrl: string;
  headers: Record<string, string>;
  runs: number;
  streams: number;
  /** How long all streams stay open before memory is read: past the 2 s a follower once waited before polling. */
  holdMs: number;
}): Promise<RejoinedStreamsResult> {
  const { engine, headers } = options;
  const pid = engine.child.pid ?? 0;
  const idleRssMiB = await currentRssMiB(pid);
  const runIds = await Promise.all(
    Array.from({ length: options.runs }, async () => {
      const input = makeRunAgentInput('Are you there?', {
        forwardedProps: { agentplane: { onDisconnect: 'continue' } },
      });
      const response = await fetch(`${engine.url}/agent/run`, { method: 'POST', headers, body: JSON.stringify(input) });
      const reader = response.body?.getReader();
      if (!reader || response.status !== 200) throw new Error(`run answered ${response.status}`);
      await reader.read();
      await reader.cancel();
      return input.runId;
    }),
  );
  // fetch's default dispatcher has no cap on connections per origin: every stream is its own socket.
  const open = await Promise.all(
    Array.from({ length: options.streams }, (_, i) =>
      timeToFirstReplayedEvent(engine.url, runIds[i % runIds.length] as string, headers),
    ),
  );
  const heldFrom = { at: performance.now(), transactions: await countTransactions(options.databaseUrl) };
  await new Promise((resolve) => setTimeout(resolve, options.holdMs));
  const transactions = (await countTransactions(options.databaseUrl)) - heldFrom.transactions;
  const idleTransactionsPerSecond = (transactions * 1000) / (performance.now() - heldFrom.at);
  const openRssMiB = await currentRssMiB(pid);
  const peak = await peakRssMiB(pid);
  await Promise.allSettled(open.map(({ reader }) => reader.cancel()));
  const firstEvents = open.map(({ elapsed }) => elapsed);
  return {
    streams: open.length,
    runs: runIds.length,
    idleRssMiB,
    openRssMiB,
    peakRssMiB: peak,
    idleTransactionsPerSecond,
    firstEventP50Ms: percentile(firstEvents, 0.5),
    firstEventP99Ms: percentile(firstEvents, 0.99),
  };
}
