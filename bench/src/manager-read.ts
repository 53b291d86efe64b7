// Benchmark 1: an authenticated single-resource read through the manager, next to the bare baseline and
// the stack-floor yardstick, all three reading the same rows in turn: one integration for each of
// several signed-in users, so that no two requests in a row read the same row or session. The
// contenders take turns in short rounds, and each figure is the median of its rounds: on a shared
// machine the CPU time available drifts by tens of percent over a minute, and a ratio of two runs made
// at different moments measures the drift as much as the code.
import { fileURLToPath } from 'node:url';
import { findFreePort } from '@agentplane/db/embedded';
import { ManagerClient } from '@agentplane/manager-client';
import { type LoadResult, median, runLoad, type Target } from './load.js';
import { type Service, startService } from './service-process.js';
import { whatsapp } from './whatsapp-integration.js';

type Name = 'manager' | 'bare' | 'stackFloor';
type Contender = { url: string; targets: Target[] };
export type ReadFigures = { requestsPerSecond: number; p99Ms: number };
export type ReadComparison = {
  rounds: number;
  manager: ReadFigures;
  bare: ReadFigures;
  stackFloor: ReadFigures;
  /** Median over rounds of manager / bare req/s, each pair measured back to back. */
  ratio: number;
  stackFloorRatio: number;
};

const figures = (results: LoadResult[]): ReadFigures => ({
  requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
  p99Ms: median(results.map((result) => result.p99Ms)),
});

async function startYardstick(file: string, databaseUrl: string): Promise<Service> {
  return startService(
    fileURLToPath(new URL(file, import.meta.url)),
    { DATABASE_URL: databaseUrl },
    '/health',
    await findFreePort(),
  );
}

async function signedInToStackFloor(url: string): Promise<Record<string, string>> {
  const response = await fetch(`${url}/session`, { method: 'POST' });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
  if (response.status !== 204 || !cookie) throw new Error(`stack floor sign-in failed: ${response.status}`);
  return { cookie };
}

/** Users of their own workspaces, each with an integration of its own: each request reads another row. */
async function readersOf(managerUrl: string, users: number) {
  const readers = [];
  for (let user = 0; user < users; user++) {
    const client = await ManagerClient.signUp(managerUrl);
    const integration = await client.expect<{ id: string }>(201, 'POST', '/integrations/', whatsapp());
    readers.push({ headers: client.headers, path: `/integrations/${integration.id}` });
  }
  return readers;
}

export async function benchManagerRead(options: {
  managerUrl: string;
  databaseUrl: string;
  durationSeconds: number;
  connections: number;
  rounds: number;
  users: number;
}): Promise<ReadComparison> {
  const readers = await readersOf(options.managerUrl, options.users);
  const bare = await startYardstick('./bare-server.js', options.databaseUrl);
  const floor = await startYardstick('./stack-floor-server.js', options.databaseUrl);
  try {
    const floorSession = await signedInToStackFloor(floor.url);
    const contenders: Record<Name, Contender> = {
      manager: {
        url: options.managerUrl,
        targets: readers.map(({ headers, path }) => ({ path: `/api/v1${path}`, headers })),
      },
      bare: { url: bare.url, targets: readers.map(({ path }) => ({ path, headers: {} })) },
      stackFloor: { url: floor.url, targets: readers.map(({ path }) => ({ path, headers: floorSession })) },
    };
    const load = (contender: Contender, durationSeconds: number) =>
      runLoad({ ...contender, connections: options.connections, durationSeconds });
    // Warm-up, so that JIT and pools are in their steady state when measured.
    for (const contender of Object.values(contenders)) await load(contender, 2);

    const results: Record<Name, LoadResult[]> = { manager: [], bare: [], stackFloor: [] };
    const ratios = { manager: [] as number[], stackFloor: [] as number[] };
    const names = Object.keys(contenders) as Name[];
    for (let round = 0; round < options.rounds; round++) {
      // Alternating the order keeps whoever runs first from always meeting the same moment of drift.
      const order = round % 2 === 0 ? names : [...names].reverse();
      const measured = {} as Record<Name, LoadResult>;
      for (const name of order) {
        const result = await load(contenders[name], options.durationSeconds);
        if (result.non2xx + result.errors > 0) throw new Error(`${name} answered errors: ${JSON.stringify(result)}`);
        measured[name] = result;
        results[name].push(result);
      }
      ratios.manager.push(measured.manager.requestsPerSecond / measured.bare.requestsPerSecond);
      ratios.stackFloor.push(measured.stackFloor.requestsPerSecond / measured.bare.requestsPerSecond);
    }
    return {
      rounds: options.rounds,
      manager: figures(results.manager),
      bare: figures(results.bare),
      stackFloor: figures(results.stackFloor),
      ratio: median(ratios.manager),
      stackFloorRatio: median(ratios.stackFloor),
    };
  } finally {
    await Promise.all([bare.stop(), floor.stop()]);
  }
}
