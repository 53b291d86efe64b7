// `pnpm bench`: every figure docs/pages/performance/ quotes, measured on loopback in one bounded run.
// Numbers after it run only those benchmarks (`pnpm bench 5 6`); 5 and 6 share their agent and run
// together; 7 to 10
// measure pool engines; 11 is benchmark 4's setup with guardrails off and on.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { findFreePort } from '@agentplane/db/embedded';
import { startBenchDatabase } from './bench-database.js';
import { startBenchManager } from './bench-manager.js';
import { benchConfigPropagation } from './config-propagation.js';
import type { IdleActivity } from './database-activity.js';
import { type ContenderFigures, change, firstEventRises, pairedChange } from './engine-comparison.js';
import { benchEngineRuns } from './engine-runs.js';
import { benchGuardrailRuns, GUARDRAIL_PATTERN_RULES } from './guardrail-runs.js';
import { median, percentile } from './load.js';
import { benchManagerRead } from './manager-read.js';
import { signUpPlatformOperator } from './platform-operator.js';
import { benchPoolColdStart } from './pool-cold-start.js';
import { benchPoolCreation, type Latencies } from './pool-creation.js';
import type { PoolBenchSetup } from './pool-engine.js';
import { benchPoolMemory, IDLE_WINDOW_MS } from './pool-memory.js';
import { benchPoolThroughput } from './pool-throughput.js';
import { benchResourceFanout } from './resource-fanout.js';
import { benchRunRecords } from './run-records.js';

const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const round = (value: number) => Math.round(value * 10) / 10;
const selected = new Set(process.argv.slice(2));
const included = (...benchmarks: string[]) => selected.size === 0 || benchmarks.some((b) => selected.has(b));
const EVENT_LOG_TARGET_PERCENT = 10;
const TRACING_RUNS_TARGET_PERCENT = 10;
const TRACING_FIRST_EVENT_TARGET_MS = 1;
const TRACING_CONTROL = onOff('BENCH_TRACING_CONTROL');
const POOL_RSS_TARGET_BYTES = 1e9;
const COLD_START_TARGET_MS = 50;
const POOL_RUNS_TARGET_RATIO = 0.9;
const CREATION_TARGET_MS = 2000;
const NOTIFY_TARGET_MS = 100;
const GUARDRAIL_RUNS_TARGET_PERCENT = 5;
const GUARDRAIL_FIRST_EVENT_TARGET_MS = 1;

/** A switch from the environment: unset is off, and anything but on or off stops the bench before it starts. */
function onOff(name: string): boolean {
  const value = process.env[name] ?? 'off';
  if (value !== 'on' && value !== 'off') throw new Error(`${name} must be "on" or "off", not "${value}"`);
  return value === 'on';
}

async function main(): Promise<void> {
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  const database = await startBenchDatabase();
  const secretsKey = randomBytes(32).toString('base64');
  const manager = await startBenchManager({ databaseUrl: database.url, secretsKey, port: await findFreePort() });
  try {
    await signUpPlatformOperator(manager.url, database.url);
    if (included('1')) await printManagerRead(manager.url, database.url);
    if (included('2')) await printResourceFanout(manager.url);
    if (included('3')) await printConfigPropagation(manager.url);
    if (included('4')) await printEngineRuns(manager.url);
    if (included('5', '6')) await printRunRecords(manager.url, database.url);
    const pools: PoolBenchSetup = { managerUrl: manager.url, databaseUrl: database.url, platformKey: secretsKey };
    if (included('7')) await printPoolMemory(pools);
    if (included('8')) await printPoolColdStart(pools);
    if (included('9')) await printPoolThroughput(pools);
    if (included('10')) await printPoolCreation(pools);
    if (included('11')) await printGuardrailRuns(manager.url);
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
    `   with NOTIFY:   p50 ${round(propagation.notify.p50Ms)} ms, p99 ${round(propagation.notify.p99Ms)} ms (target p99 <= ${NOTIFY_TARGET_MS} ms)`,
  );
  console.log(
    `   polling only:  p50 ${round(propagation.polling.p50Ms)} ms, p99 ${round(propagation.polling.p99Ms)} ms (target p99 <= ${propagation.pollMs + 100} ms)`,
  );
}

const verdict = (met: boolean) => (met ? 'PASS' : 'MISS');
const signed = (value: number, digits = 1) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;
const roundRates = (figures: ContenderFigures) => figures.roundRates.map(round).join(', ');

async function printEngineRuns(managerUrl: string): Promise<void> {
  const runs = await benchEngineRuns({
    managerUrl,
    rounds: 24,
    roundSeconds: Math.max(1, Math.round(DURATION_SECONDS / 10)),
    streams: 1000,
    control: TRACING_CONTROL,
  });
  const { traced, untraced } = runs;
  console.log(
    `\n4. POST /agent/run on one engine, mock model, each run a new thread; tracing off and on in turns (the agent references an observability resource or not; spans batched over OTLP/protobuf to a receiver in the bench process, ${traced.exportBatches} exports), ${runs.rounds} interleaved rounds`,
  );
  if (TRACING_CONTROL) {
    console.log(
      `   CONTROL RUN (BENCH_TRACING_CONTROL=on): tracing off on both sides; its "tracing cost" is the bench's noise`,
    );
  }
  console.log(
    `   runs/s (20 connections), medians: untraced ${round(untraced.runsPerSecond)}, traced ${round(traced.runsPerSecond)}; p99 per whole run ${round(untraced.wholeRunP99Ms)} ms, ${round(traced.wholeRunP99Ms)} ms`,
  );
  console.log(`   runs/s by round:           untraced ${roundRates(untraced)}; traced ${roundRates(traced)}`);
  console.log(
    `   time to first event (${untraced.firstEvent.runs} runs each, 10 at a time): p50 untraced ${round(untraced.firstEvent.p50Ms)} ms, traced ${round(traced.firstEvent.p50Ms)} ms; p99 ${round(untraced.firstEvent.p99Ms)} ms, ${round(traced.firstEvent.p99Ms)} ms`,
  );
  const drop = -pairedChange(traced, untraced);
  const rises = firstEventRises(traced, untraced);
  const rise = median(rises);
  console.log(
    `   tracing cost, medians of the rounds' back-to-back pairs: ${drop.toFixed(1)} % fewer runs/s (target <= ${TRACING_RUNS_TARGET_PERCENT} %: ${verdict(drop <= TRACING_RUNS_TARGET_PERCENT)}), time to first event p50 ${signed(rise, 2)} ms (target <= ${TRACING_FIRST_EVENT_TARGET_MS} ms: ${verdict(rise <= TRACING_FIRST_EVENT_TARGET_MS)})`,
  );
  // One pair's rise is mostly this machine's noise: the middle half of them shows how much.
  console.log(
    `   time to first event p50 rise by pair: middle half ${signed(percentile(rises, 0.25), 2)} to ${signed(percentile(rises, 0.75), 2)} ms`,
  );
  console.log(
    `   ${runs.streams.open} concurrent open streams on a fresh engine: peak RSS ${round(runs.streams.peakRssMiB)} MiB (idle ${round(runs.streams.idleRssMiB)} MiB; target < 400 MB)`,
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
  const percent = (logged: number, unlogged: number) => `${signed(change(logged, unlogged))} %`;
  // Fewer runs/s and a later first event are the costs; the target bounds both.
  const withinTarget = (cost: number) => verdict(cost <= EVENT_LOG_TARGET_PERCENT);
  console.log(
    `\n5. POST /agent/run, database mode, event log on vs off (ENGINE_RUN_EVENT_LOG), same agent, token and database; medians of ${records.eventLog.rounds} interleaved rounds`,
  );
  console.log(
    `   runs/s (20 connections):   on ${round(on.runsPerSecond)}, off ${round(off.runsPerSecond)} (${percent(on.runsPerSecond, off.runsPerSecond)}; target within ${EVENT_LOG_TARGET_PERCENT} %: ${withinTarget(-change(on.runsPerSecond, off.runsPerSecond))})`,
  );
  console.log(`   runs/s by round:           on ${roundRates(on)}; off ${roundRates(off)}`);
  const paired = pairedChange(on, off);
  console.log(
    `   runs/s, median of the rounds' back-to-back pairs: ${signed(paired)} % (target within ${EVENT_LOG_TARGET_PERCENT} %: ${withinTarget(-paired)})`,
  );
  for (const name of ['p50Ms', 'p99Ms'] as const) {
    const [logged, unlogged] = [on.firstEvent[name], off.firstEvent[name]];
    console.log(
      `   time to first event, ${name.slice(0, 3)}:  on ${round(logged)} ms, off ${round(unlogged)} ms (${percent(logged, unlogged)}; target within ${EVENT_LOG_TARGET_PERCENT} %: ${withinTarget(change(logged, unlogged))})`,
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

const MIB = 2 ** 20;

async function printPoolMemory(setup: PoolBenchSetup): Promise<void> {
  const memory = await benchPoolMemory({ ...setup, placed: 10_000, served: 1000, concurrency: 10 });
  const { noneLoaded, loaded } = memory.idle;
  console.log(
    `\n7. ${memory.placed} agents placed on one pool engine (copies of one agent, made and placed in ${round(memory.placementSeconds)} s), ${memory.served} of them each served one run, 10 at a time`,
  );
  console.log(
    `   RSS ${round(memory.rssMiB)} MiB with ${memory.loaded} agents loaded (target <= 1 GB, ${round(POOL_RSS_TARGET_BYTES / MIB)} MiB: ${verdict(memory.rssMiB * MIB <= POOL_RSS_TARGET_BYTES)}); peak ${round(memory.peakRssMiB)} MiB`,
  );
  // The target counts agents that served a run within the minute before the reading.
  console.log(
    `   the runs took ${round(memory.runsSeconds)} s, read ${round(memory.sinceFirstRunSeconds)} s after the first began (all within the last minute: ${memory.sinceFirstRunSeconds <= 60 ? 'yes' : 'NO'})`,
  );
  console.log(
    `   before the runs, every agent placed and none loaded: ${round(memory.idleRssMiB)} MiB; so ${round(((memory.rssMiB - memory.idleRssMiB) * 1024) / memory.loaded)} KiB per loaded agent`,
  );
  const activity = ({ cpuPercent, transactionsPerSecond }: IdleActivity) =>
    `engine CPU ${round(cpuPercent)} % of a core, database ${round(transactionsPerSecond)} transactions/s`;
  console.log(`   ${IDLE_WINDOW_MS / 1000} s without requests, none loaded: ${activity(noneLoaded)}`);
  console.log(`   ${IDLE_WINDOW_MS / 1000} s without requests, ${memory.loaded} loaded: ${activity(loaded)}`);
}

async function printPoolColdStart(setup: PoolBenchSetup): Promise<void> {
  const start = await benchPoolColdStart({ ...setup, agents: 200 });
  const rise = start.cold.p50Ms - start.warm.p50Ms;
  console.log(
    `\n8. Time to first event on a pool engine, mock model, no MCP: each of ${start.agents} agents' first run (cold: not loaded), then its second (warm), one run at a time`,
  );
  console.log(
    `   cold p50 ${round(start.cold.p50Ms)} ms, p99 ${round(start.cold.p99Ms)} ms; warm p50 ${round(start.warm.p50Ms)} ms, p99 ${round(start.warm.p99Ms)} ms`,
  );
  console.log(
    `   cold p50 - warm p50: ${signed(rise, 2)} ms (target <= ${COLD_START_TARGET_MS} ms: ${verdict(rise <= COLD_START_TARGET_MS)}); median of the agents' own differences ${signed(start.pairedRiseMs, 2)} ms`,
  );
}

async function printPoolThroughput(setup: PoolBenchSetup): Promise<void> {
  const runs = await benchPoolThroughput({
    ...setup,
    agents: 100,
    rounds: 10,
    roundSeconds: Math.max(1, Math.round(DURATION_SECONDS / 5)),
  });
  const { pool, dedicated } = runs;
  const ratio = pool.runsPerSecond / dedicated.runsPerSecond;
  const pairedRatio = 1 + pairedChange(pool, dedicated) / 100;
  console.log(
    `\n9. POST /agent/run, mock model, each run a new thread: one pool engine serving ${runs.agents} agents (runs spread over them in turn, each with its agent's token) vs a dedicated engine serving one, ${runs.rounds} interleaved rounds`,
  );
  console.log(
    `   runs/s (20 connections), medians: pool ${round(pool.runsPerSecond)}, dedicated ${round(dedicated.runsPerSecond)}; p99 per whole run ${round(pool.wholeRunP99Ms)} ms, ${round(dedicated.wholeRunP99Ms)} ms`,
  );
  console.log(`   runs/s by round:           pool ${roundRates(pool)}; dedicated ${roundRates(dedicated)}`);
  console.log(
    `   warm-up before the rounds (10 connections, each of the pool's agents some 30 runs): pool ${round(pool.warmUpRate)}, dedicated ${round(dedicated.warmUpRate)} runs/s`,
  );
  console.log(
    `   pool / dedicated: ${ratio.toFixed(2)} of the medians; ${pairedRatio.toFixed(2)}, median of the rounds' back-to-back pairs (target >= ${POOL_RUNS_TARGET_RATIO}: ${verdict(pairedRatio >= POOL_RUNS_TARGET_RATIO)})`,
  );
  console.log(
    `   time to first event (${pool.firstEvent.runs} runs each, 10 at a time): p50 pool ${round(pool.firstEvent.p50Ms)} ms, dedicated ${round(dedicated.firstEvent.p50Ms)} ms; p99 ${round(pool.firstEvent.p99Ms)} ms, ${round(dedicated.firstEvent.p99Ms)} ms`,
  );
}

async function printPoolCreation(setup: PoolBenchSetup): Promise<void> {
  const creation = await benchPoolCreation({ ...setup, agents: 100, patches: 30 });
  const line = ({ p50Ms, p99Ms, maxMs, retries }: Latencies) =>
    `p50 ${round(p50Ms)} ms, p99 ${round(p99Ms)} ms, max ${round(maxMs)} ms (${retries} requests sent again; target p99 <= ${CREATION_TARGET_MS} ms: ${verdict(p99Ms <= CREATION_TARGET_MS)})`;
  console.log(
    `\n10. ${creation.agents} agents created through the API, one at a time, on a manager that places new agents on a pool (DEFAULT_ENGINE_POOL), with that pool's engine running`,
  );
  console.log(`   create response -> first event of the agent's first run on the pool: ${line(creation.firstRun)}`);
  const patched = creation.patched;
  console.log(
    `   PATCH sent -> the pool serves the new version (${creation.patches} PATCHes): p50 ${round(patched.p50Ms)} ms, p99 ${round(patched.p99Ms)} ms (benchmark 3's bound, p99 <= ${NOTIFY_TARGET_MS} ms: ${verdict(patched.p99Ms <= NOTIFY_TARGET_MS)})`,
  );
  console.log(`   delete response -> the pool answers 404 for the agent's routes:       ${line(creation.deleted)}`);
}

async function printGuardrailRuns(managerUrl: string): Promise<void> {
  const runs = await benchGuardrailRuns({
    managerUrl,
    rounds: 24,
    roundSeconds: Math.max(1, Math.round(DURATION_SECONDS / 10)),
  });
  const { on, off } = runs;
  console.log(
    `\n11. POST /agent/run on one engine, mock model, each run a new thread (benchmark 4's setup): guardrails off and on in turns (the agent references a guardrail of ${GUARDRAIL_PATTERN_RULES} pattern rules and a PII rule of every entity, ${runs.rules} rules all on the output, or none), ${runs.rounds} interleaved rounds`,
  );
  if (!runs.applied) {
    console.log(
      '   WARNING: a reply holding a banned phrase was not blocked with the guardrails on: this engine does not apply them, so the figures below measure nothing',
    );
  }
  console.log(
    `   runs/s (20 connections), medians: off ${round(off.runsPerSecond)}, on ${round(on.runsPerSecond)}; on / off ${(on.runsPerSecond / off.runsPerSecond).toFixed(3)}`,
  );
  console.log(`   runs/s by round:           off ${roundRates(off)}; on ${roundRates(on)}`);
  console.log(
    `   time to first event (${off.firstEvent.runs} runs each, 10 at a time): p50 off ${round(off.firstEvent.p50Ms)} ms, on ${round(on.firstEvent.p50Ms)} ms (${signed(on.firstEvent.p50Ms - off.firstEvent.p50Ms, 2)} ms); p99 ${round(off.firstEvent.p99Ms)} ms, ${round(on.firstEvent.p99Ms)} ms`,
  );
  const drop = -pairedChange(on, off);
  const rises = firstEventRises(on, off);
  const rise = median(rises);
  console.log(
    `   guardrails' cost, medians of the rounds' back-to-back pairs: ${drop.toFixed(1)} % fewer runs/s (target <= ${GUARDRAIL_RUNS_TARGET_PERCENT} %: ${verdict(runs.applied && drop <= GUARDRAIL_RUNS_TARGET_PERCENT)}), time to first event p50 ${signed(rise, 2)} ms (target <= ${GUARDRAIL_FIRST_EVENT_TARGET_MS} ms: ${verdict(runs.applied && rise <= GUARDRAIL_FIRST_EVENT_TARGET_MS)})`,
  );
  console.log(
    `   time to first event p50 rise by pair: middle half ${signed(percentile(rises, 0.25), 2)} to ${signed(percentile(rises, 0.75), 2)} ms`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
