// `pnpm bench`: every figure the README quotes, measured on loopback in one bounded run.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@agentplane/db/embedded';
import { startBenchDatabase } from './bench-database.js';
import { benchManagerRead } from './manager-read.js';
import { benchResourceFanout } from './resource-fanout.js';
import { startService } from './service-process.js';

const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const round = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  console.log(
    `machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`,
  );
  const database = await startBenchDatabase();
  const manager = await startService(
    fileURLToPath(new URL('../../apps/manager/dist/server.js', import.meta.url)),
    {
      DATABASE_URL: database.url,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      SESSION_SECRET: randomBytes(32).toString('base64'),
      AUTH_RATE_LIMIT_PER_IP: '100000',
      NODE_ENV: 'development',
    },
    '/api/v1/healthz',
    await findFreePort(),
  );
  try {
    const read = await benchManagerRead({
      managerUrl: manager.url,
      databaseUrl: database.url,
      durationSeconds: DURATION_SECONDS,
      connections: 20,
    });
    console.log('\n1. GET /api/v1/integrations/{id}, authenticated (20 connections)');
    console.log(`   manager:            ${round(read.manager.requestsPerSecond)} req/s, p99 ${read.manager.p99Ms} ms`);
    console.log(`   bare Express + pg:  ${round(read.bare.requestsPerSecond)} req/s, p99 ${read.bare.p99Ms} ms`);
    console.log(`   ratio:              ${read.ratio.toFixed(2)} (target >= 0.5)`);

    const fanout = await benchResourceFanout({ managerUrl: manager.url, agents: 100, patches: 50 });
    console.log(
      `\n2. PATCH of an integration referenced by ${fanout.agents} agents (${fanout.patches} sequential PATCHes)`,
    );
    console.log(`   p50 ${round(fanout.p50Ms)} ms, p99 ${round(fanout.p99Ms)} ms`);
  } finally {
    await manager.stop();
    await database.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
