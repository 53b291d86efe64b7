// `pnpm bench`: every figure the README quotes, measured on loopback in one bounded run. Numbers after
// it run only those benchmarks (`pnpm bench 5 6`); 5 and 6 share their agent and run together.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@agentplane/db/embedded';
import { LOOPBACK_EGRESS_ALLOW } from '@agentplane/server-kit';
import { startBenchDatabase } from './bench-database.js';
import { benchConfigPropagation } from './config-propagation.js';
import { benchEngineRuns } from './engine-runs.js';
import { percentile } from './load.js';
import { benchManagerRead } from './manager-read.js';
import { benchResourceFanout } from './resource-fanout.js';
import { benchRunRecords } from './run-records.js';
import { startService } from './service-process.js';

const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const round = (value: number) => Math.round(value * 10) / 10;
const selected = new Set(process.argv.slice(2));
const included = (...benchmarks: string[]) => selected.size === 0 || benchmarks.some((b) => selected.has(b));
/** Logging on against off, in percent of off: positive is more. */
const change = (logged: number, unlogged: number) => ((logged - unlogged) / unlogged) * 100;
const EVENT_LOG_TARGET_PERCENT = 10;

async function main(): Promise<void> {
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  const database = await startBenchDatabase();
  const secretsKey = randomBytes(32).toString('base64');
  const managerPort = await findFreePort();
  const manager = await startService(
    fileURLToPath(new URL('../../apps/manager/dist/server.js', import.meta.url)),
    {
      DATABASE_URL: database.url,
      SECRETS_KEY: secretsKey,
      ISSUER_URL: `http://127.0.0.1:${managerPort}`,
      SESSION_SECRET: randomBytes(32).toString('base64'),
      AUTH_RATE_LIMIT_PER_IP: '100000',
      NODE_ENV: 'development',
      // Benchmark 4's model is a local server.
      EGRESS_ALLOW: LOOPBACK_EGRESS_ALLOW,
    },
    '/api/v1/healthz',
    managerPort,
  );
  try {
    if (included('1')) await printManagerRead(manager.url, database.url);
    if (included('2')) await printResourceFanout(manager.url);
    if (included('3')) await printConfigPropagation(manager.url);
    if (included('4')) await printEngineRuns(manager.url);
    if (included('5', '6')) await printRunRecords(manager.url, database.url);
  } finally {
    await manager.stop();
    await database.stop();
  }
}

async function printManagerRead(managerUrl: string, databaseUrl: string): Promise<void> {
  const read = await benchManagerRead({
    managerUrl,
    databaseUrl,
    durationSeconds: Math.max(2, Math.round(DURATION_SECONDS / 3)),
    connections: 20,
    rounds: 5,
    users: 20,
  });
  console.log(
    `\n1. GET /api/v1/integrations/{id}, authenticated (20 connections, 20 users' integrations in turn; medians of ${read.rounds} interleaved rounds)`,
  );
  console.log(`   manager:            ${round(read.manager.requestsPerSecond)} req/s, p99 ${read.manager.p99Ms} ms`);
  console.log(`   bare Express + pg:  ${round(read.bare.requestsPerSecond)} req/s, p99 ${read.bare.p99Ms} ms`);
  console.log(`   ratio:              ${read.ratio.toFixed(2)} (target >= 0.5)`);
  console.log(
    `   yardstick, the stack alone (pino-http + helmet + express-session in memory + pg): ${round(read.stackFloor.requestsPerSecond)} req/s, ratio ${read.stackFloorRatio.toFixed(2)}`,
  );
}

async function printResourceFanout(managerUrl: string): Promise<void> {
  const fanout = await benchResourceFanout({ managerUrl, agents: 100, patches: 50 });
  console.log(
    `\n2. PATCH of an integration referenced by ${fanout.agents} agents (${fanout.patches} sequential PATCHes)`,
  );
  console.log(`   p50 ${round(fanout.p50Ms)} ms, p99 ${round(fanout.p99Ms)} ms`);
}

async function printConfigPropagation(managerUrl: string): Promise<void> {
  const propagation = await benchConfigPropagation({
    managerUrl,
    pollMs: 1000,
    rounds: 30,
  });
  console.log(
    `\n3. PATCH -> engine serving the new config version (${30} PATCHes, poll interval ${propagation.pollMs} ms)`,
  );
  console.log(
    `   with NOTIFY:   p50 ${round(propagation.notify.p50Ms)} ms, p99 ${round(propagation.notify.p99Ms)} ms (target p99 <= 100 ms)`,
  );
  console.log(
    `   polling only:  p50 ${round(propagation.polling.p50Ms)} ms, p99 ${round(propagation.polling.p99Ms)} ms (target p99 <= ${propagation.pollMs + 100} ms)`,
  );
}

async function printEngineRuns(managerUrl: string): Promise<void> {
  const runs = await benchEngineRuns({
    managerUrl,
    durationSeconds: DURATION_SECONDS,
    streams: 1000,
  });
  console.log('\n4. POST /agent/run on one engine, mock model; tracing off and on in turns, medians of 4 rounds');
  console.log(
    `   ${round(runs.load.requestsPerSecond)} runs/s (20 connections), p99 ${runs.load.p99Ms} ms per whole run`,
  );
  console.log(
    `   time to first event (${runs.firstEvent.runs} runs, 10 at a time): p50 ${round(runs.firstEvent.p50Ms)} ms, p99 ${round(runs.firstEvent.p99Ms)} ms`,
  );
  const { traced } = runs;
  const runsDrop = -change(traced.load.requestsPerSecond, runs.load.requestsPerSecond);
  const firstEventRise = traced.firstEvent.p50Ms - runs.firstEvent.p50Ms;
  const verdict = (met: boolean) => (met ? 'PASS' : 'MISS');
  console.log(
    `   traced (spans batched to a local OTLP receiver, ${traced.exportBatches} exports): ${round(traced.load.requestsPerSecond)} runs/s, time to first event p50 ${round(traced.firstEvent.p50Ms)} ms, p99 ${round(traced.firstEvent.p99Ms)} ms`,
  );
  console.log(
    `   tracing cost: ${runsDrop.toFixed(1)} % fewer runs/s (target <= 10 %: ${verdict(runsDrop <= 10)}), time to first event p50 ${firstEventRise >= 0 ? '+' : ''}${firstEventRise.toFixed(2)} ms (target <= 1 ms: ${verdict(firstEventRise <= 1)})`,
  );
  console.log(
    `   ${runs.streams.open} concurrent open streams: peak RSS ${round(runs.streams.peakRssMiB)} MiB (idle ${round(runs.streams.idleRssMiB)} MiB; target < 400 MB)`,
  );
}

async function printRunRecords(managerUrl: string, databaseUrl: string): Promise<void> {
  const records = await benchRunRecords({
    managerUrl,
    databaseUrl,
    durationSeconds: DURATION_SECONDS,
    streams: 1000,
  });
  const { on, off } = records.eventLog;
  const percent = (logged: number, unlogged: number) => `${change(logged, unlogged).toFixed(1)} %`;
  // Fewer runs/s and a later first event are the costs; the target bounds both.
  const verdict = (cost: number) => (cost <= EVENT_LOG_TARGET_PERCENT ? 'PASS' : 'MISS');
  console.log(
    `\n5. POST /agent/run, database mode, event log on vs off (ENGINE_RUN_EVENT_LOG), same agent, token and database; medians of ${records.eventLog.rounds} interleaved rounds`,
  );
  console.log(
    `   runs/s (20 connections):   on ${round(on.runsPerSecond)}, off ${round(off.runsPerSecond)} (${percent(on.runsPerSecond, off.runsPerSecond)}; target within ${EVENT_LOG_TARGET_PERCENT} %: ${verdict(-change(on.runsPerSecond, off.runsPerSecond))})`,
  );
  const rates = (figures: typeof on) => figures.roundRates.map(round).join(', ');
  console.log(`   runs/s by round:           on ${rates(on)}; off ${rates(off)}`);
  // As benchmark 1's ratio: each round's two back-to-back measures share the machine's state of the moment.
  const paired = percentile(
    on.roundRates.map((rate, i) => change(rate, off.roundRates[i] ?? Number.NaN)),
    0.5,
  );
  console.log(
    `   runs/s, median of the rounds' back-to-back pairs: ${paired.toFixed(1)} % (target within ${EVENT_LOG_TARGET_PERCENT} %: ${verdict(-paired)})`,
  );
  for (const [name, key] of [
    ['p50', 'firstEventP50Ms'],
    ['p99', 'firstEventP99Ms'],
  ] as const) {
    console.log(
      `   time to first event, ${name}:  on ${round(on[key])} ms, off ${round(off[key])} ms (${percent(on[key], off[key])}; target within ${EVENT_LOG_TARGET_PERCENT} %: ${verdict(change(on[key], off[key]))})`,
    );
  }
  console.log('\n6. GET /agent/runs/{id}/stream');
  console.log(
    `   rejoin of a finished run, request to first replayed event (${records.rejoin.rejoins}, one at a time): p50 ${round(records.rejoin.p50Ms)} ms, p99 ${round(records.rejoin.p99Ms)} ms`,
  );
  const { streams } = records;
  console.log(
    `   ${streams.streams} concurrent rejoined streams (${streams.runs} running runs): RSS ${round(streams.openRssMiB)} MiB while open, peak ${round(streams.peakRssMiB)} MiB (idle ${round(streams.idleRssMiB)} MiB; target < 400 MB)`,
  );
  console.log(
    `   first replayed event while the ${streams.streams} open at once: p50 ${round(streams.firstEventP50Ms)} ms, p99 ${round(streams.firstEventP99Ms)} ms`,
  );
  console.log(
    `   database transactions while all ${streams.streams} were open with nothing new: ${round(streams.idleTransactionsPerSecond)}/s (the whole database: leases, queue and config polls included)`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
