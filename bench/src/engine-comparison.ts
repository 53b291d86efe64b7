// Setups of /agent/run measured side by side (benchmark 4: one engine traced and not, in turns; 5: two
// engines, event log on and off). This machine's throughput drifts by tens of percent from minute to
// minute, so each contender gets short rounds in turn, the order alternating from round to round so
// that none always runs on a machine warmed (or tired) by another; figures are medians over the
// rounds, and a comparison is the median of the rounds' back-to-back pairs, which share the machine's
// state of the moment.
import { randomUUID } from 'node:crypto';
import { makeRunAgentInput } from '@agentplane/testing';
import { median, percentile, runLoad, type Target } from './load.js';

/**
 * An engine's origin and the run endpoints below it that the contender's runs go to in turn, each with
 * the headers it needs (one agent's `/agent/run`, or a pool's agents' each with its own token);
 * `prepare` sets the engine up before each of the contender's rounds (benchmark 4 switches its
 * tracing); `onRun` hears of every run timed to its first event.
 */
export type Contender = {
  url: string;
  runs: Target[];
  prepare?: () => Promise<void>;
  onRun?: (runId: string) => void;
};

/** The run endpoint of an engine that serves one agent at its root. */
export const soleAgentRuns = (headers: Record<string, string>): Target[] => [{ path: '/agent/run', headers }];

export type ContenderFigures = {
  /** Runs/s under 20 connections: the median round's, and every round's in order. */
  runsPerSecond: number;
  roundRates: number[];
  /** The median over rounds of each round's p99 for a whole run under that load. */
  wholeRunP99Ms: number;
  /** Request to the first bytes of the event stream, runs sent 10 at a time, over every round. */
  firstEvent: { runs: number; p50Ms: number; p99Ms: number };
  /** Each round's own time-to-first-event p50, in order. */
  roundFirstEventP50s: number[];
  /** Runs/s while warming up, before any round (10 connections). */
  warmUpRate: number;
};

export const runBody = (content: string, runId?: string) =>
  JSON.stringify(makeRunAgentInput(content, runId === undefined ? {} : { runId }));

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

/** Reads a stream to its end, unread: the rest of a run whose first event was timed. */
export async function drainStream(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  while (!(await reader.read()).done) {
    // nothing to keep
  }
}

/** Runs `task(0)` to `task(total - 1)`, `concurrency` at a time. */
export async function inBatches(
  total: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      await task(started++);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** One round on one engine: runs/s under load, then the time to first event of runs sent 10 at a time. */
async function measureRound(contender: Contender, seconds: number, firstEventRuns: number) {
  const { url, runs } = contender;
  // Every run is a new conversation, as with many users: one shared thread would make every run wait
  // for the previous one's append and read an ever longer history.
  const load = await runLoad({
    url,
    method: 'POST',
    targets: runs,
    body: () => runBody('Hello, how are you today?'),
    connections: 20,
    durationSeconds: seconds,
  });
  if (load.errors > 0 || load.non2xx > 0) {
    throw new Error(
      `${url}: ${load.errors} errors, ${load.non2xx} non-2xx (statuses ${JSON.stringify(load.statuses)})`,
    );
  }
  const firstEvents: number[] = [];
  await inBatches(firstEventRuns, 10, async (index) => {
    const runId = randomUUID();
    const body = runBody('How fast is the first event?', runId);
    const target = runs[index % runs.length];
    if (target === undefined) throw new Error(`${url}: a contender without run endpoints`);
    const { elapsed, reader } = await timeToFirstEvent(`${url}${target.path}`, target.headers, undefined, body);
    firstEvents.push(elapsed);
    await drainStream(reader);
    contender.onRun?.(runId);
  });
  return { load, firstEvents };
}

/**
 * Every contender warmed up for `warmUpSeconds`, or with `warmUpRuns` runs when given, then measured in `rounds` interleaved rounds, each of
 * `seconds` of load and `firstEventRuns` runs timed to their first event.
 */
export async function compareEngines<Name extends string>(
  contenders: Record<Name, Contender>,
  {
    rounds,
    seconds,
    firstEventRuns = 200,
    warmUpSeconds = 2,
    warmUpRuns,
  }: { rounds: number; seconds: number; firstEventRuns?: number; warmUpSeconds?: number; warmUpRuns?: number },
): Promise<Record<Name, ContenderFigures>> {
  const names = Object.keys(contenders) as Name[];
  const warmUpRates = new Map<Name, number>();
  for (const name of names) {
    const contender = contenders[name];
    await contender.prepare?.();
    const warmUp = await runLoad({
      url: contender.url,
      method: 'POST',
      targets: contender.runs,
      body: () => runBody('warm up'),
      connections: 10,
      ...(warmUpRuns === undefined ? { durationSeconds: warmUpSeconds } : { runs: warmUpRuns }),
    });
    warmUpRates.set(name, warmUp.requestsPerSecond);
  }
  const samples = new Map(
    names.map((name) => [name, { rates: [] as number[], p99s: [] as number[], first: [] as number[][] }]),
  );
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      await contenders[name].prepare?.();
      const measured = await measureRound(contenders[name], seconds, firstEventRuns);
      const sample = samples.get(name);
      sample?.rates.push(measured.load.requestsPerSecond);
      sample?.p99s.push(measured.load.p99Ms);
      sample?.first.push(measured.firstEvents);
    }
  }
  const figures = (name: Name): ContenderFigures => {
    const { rates = [], p99s = [], first = [] } = samples.get(name) ?? {};
    const all = first.flat();
    return {
      runsPerSecond: median(rates),
      roundRates: rates,
      wholeRunP99Ms: median(p99s),
      firstEvent: { runs: all.length, p50Ms: percentile(all, 0.5), p99Ms: percentile(all, 0.99) },
      roundFirstEventP50s: first.map(median),
      warmUpRate: warmUpRates.get(name) ?? Number.NaN,
    };
  };
  return Object.fromEntries(names.map((name) => [name, figures(name)])) as Record<Name, ContenderFigures>;
}

/** `measured` against `baseline` in percent of the baseline: positive is more. */
export const change = (measured: number, baseline: number) => ((measured - baseline) / baseline) * 100;

/** The median, over rounds, of the change from each round's baseline rate to its measured one, in percent. */
export function pairedChange(measured: ContenderFigures, baseline: ContenderFigures): number {
  return median(measured.roundRates.map((rate, i) => change(rate, baseline.roundRates[i] ?? Number.NaN)));
}

/** Each round's rise from the baseline's time-to-first-event p50 to the measured one, in ms. */
export function firstEventRises(measured: ContenderFigures, baseline: ContenderFigures): number[] {
  return measured.roundFirstEventP50s.map((p50, i) => p50 - (baseline.roundFirstEventP50s[i] ?? Number.NaN));
}
