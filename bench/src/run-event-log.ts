// Benchmark 5: what the event log costs a live client. The same mock-model agent behind two engine
// processes in database mode, with the same credentials, token and database, differing only in
// ENGINE_RUN_EVENT_LOG: both store every run's row and thread, one its events too ("logging on"), one
// not ("logging off"). Measured in interleaved rounds, medians reported.
import { randomUUID } from 'node:crypto';
import type { TEngineCredentials } from '@agentplane/contracts';
import { makeRunAgentInput } from '@agentplane/testing';
import { startEngine } from './engine-process.js';
import { inBatches, timeToFirstEvent } from './engine-runs.js';
import { percentile, runLoad } from './load.js';
import type { Service } from './service-process.js';

export type RunFigures = {
  runsPerSecond: number;
  /** Every round's runs/s, in order: how much the machine drifted. */
  roundRates: number[];
  firstEventP50Ms: number;
  firstEventP99Ms: number;
};
export type RunEventLogResult = { on: RunFigures; off: RunFigures; rounds: number; storedRunIds: string[] };

const median = (values: number[]) => percentile(values, 0.5);

/** One round on one engine: runs/s under load, then time to first event 10 at a time. */
async function measureRound(
  engineUrl: string,
  headers: Record<string, string>,
  seconds: number,
  onRun: (runId: string) => void,
) {
  const url = `${engineUrl}/agent/run`;
  const load = await runLoad({
    url,
    method: 'POST',
    headers,
    body: () => JSON.stringify(makeRunAgentInput('Hello, how are you today?')),
    connections: 20,
    durationSeconds: seconds,
  });
  const firstEvents: number[] = [];
  await inBatches(200, 10, async () => {
    const runId = randomUUID();
    const body = JSON.stringify(makeRunAgentInput('How fast is the first event?', { runId }));
    const { elapsed, reader } = await timeToFirstEvent(url, headers, undefined, body);
    firstEvents.push(elapsed);
    while (!(await reader.read()).done) {
      // drain the rest of the run
    }
    onRun(runId);
  });
  return { runsPerSecond: load.requestsPerSecond, firstEvents };
}

export async function benchRunEventLog(options: {
  /** The database-mode engine with its event log on, serving the agent of `credentials`. */
  engine: Service;
  credentials: TEngineCredentials;
  managerIssuer: string;
  headers: Record<string, string>;
  durationSeconds: number;
  rounds: number;
}): Promise<RunEventLogResult> {
  const unlogged = await startEngine({
    credentials: options.credentials,
    managerIssuer: options.managerIssuer,
    env: { ENGINE_RUN_EVENT_LOG: 'off' },
  });
  const engines = { on: options.engine.url, off: unlogged.url };
  const seconds = Math.max(1, Math.round(options.durationSeconds / options.rounds));
  const storedRunIds: string[] = [];
  try {
    for (const url of Object.values(engines)) {
      await runLoad({
        url: `${url}/agent/run`,
        method: 'POST',
        headers: options.headers,
        body: () => JSON.stringify(makeRunAgentInput('warm up')),
        connections: 10,
        durationSeconds: 2,
      });
    }
    const samples = {
      on: { rates: [] as number[], first: [] as number[] },
      off: { rates: [] as number[], first: [] as number[] },
    };
    for (let round = 0; round < options.rounds; round++) {
      // Alternating which goes first, so neither always runs on a machine warmed (or tired) by the other.
      const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const mode of order) {
        const measured = await measureRound(engines[mode], options.headers, seconds, (runId) => {
          if (mode === 'on') storedRunIds.push(runId);
        });
        samples[mode].rates.push(measured.runsPerSecond);
        samples[mode].first.push(...measured.firstEvents);
      }
    }
    const figures = (mode: 'on' | 'off'): RunFigures => ({
      runsPerSecond: median(samples[mode].rates),
      roundRates: samples[mode].rates,
      firstEventP50Ms: percentile(samples[mode].first, 0.5),
      firstEventP99Ms: percentile(samples[mode].first, 0.99),
    });
    return { on: figures('on'), off: figures('off'), rounds: options.rounds, storedRunIds };
  } finally {
    await unlogged.stop();
  }
}
