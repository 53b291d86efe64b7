// The engine's connections in shards: an agent's transactions go to its home shard, and wait there
// while it has no connection free; one that waited its bound takes a free connection of another
// shard, or the first one released anywhere. Real connections, told apart by their backend's pid.
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { type ConnectionShards, homeShardOf, openConnectionShards, shardSizes } from './connection-shards.js';

let database: TestDatabase;
const opened: ConnectionShards[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await Promise.all(opened.map((shards) => shards.end()));
  await database?.drop();
});

/** Four connections in two shards; `pools` are the shards' own pools, in order. */
function openShards(borrowAfterMs: number, connectionTimeoutMillis?: number) {
  const pools: pg.Pool[] = [];
  const shards = openConnectionShards({ maxConnections: 4, sharded: true, borrowAfterMs }, (max) => {
    const pool = new pg.Pool({ connectionString: database.url, max, connectionTimeoutMillis });
    pool.on('error', () => {});
    pools.push(pool);
    return pool;
  });
  opened.push(shards);
  return { shards, pools };
}

/** Waits long enough for the waiters' bound of 0 ms to have passed: Node runs timers in order. */
const pastTheBound = () => new Promise((resolve) => setTimeout(resolve, 1));

const pidOf = async (client: pg.PoolClient) =>
  (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;

/** Two agent ids whose homes are the first shard and the second. */
function agentsAtHome(): [string, string] {
  const ids = Array.from({ length: 64 }, (_, i) => `agent-${i}`);
  const first = ids.find((id) => homeShardOf(id, 2) === 0);
  const second = ids.find((id) => homeShardOf(id, 2) === 1);
  if (first === undefined || second === undefined) throw new Error('no spread over two shards');
  return [first, second];
}

/** Every connection of both shards held: two at Ada's home, two at Bob's. */
async function holdAll(shards: ConnectionShards) {
  const [ada, bob] = agentsAtHome();
  const adaHome = await Promise.all([shards.connect(ada), shards.connect(ada)]);
  const bobHome = await Promise.all([shards.connect(bob), shards.connect(bob)]);
  return { ada, bob, adaHome, bobHome };
}

/** Every connection held, then Ada waiting for one and Bob after her; with each one's first home connection's pid. */
async function adaThenBobWaiting(shards: ConnectionShards) {
  const held = await holdAll(shards);
  const adaPid = await pidOf(held.adaHome[0] as pg.PoolClient);
  const bobPid = await pidOf(held.bobHome[0] as pg.PoolClient);
  return { ...held, adaPid, bobPid, adaWaits: shards.connect(held.ada), bobWaits: shards.connect(held.bob) };
}

/** Releases what the waiters got and the connections still held (the first of each home went to them). */
async function releaseAll(held: Awaited<ReturnType<typeof adaThenBobWaiting>>) {
  for (const client of [await held.adaWaits, await held.bobWaits, held.adaHome[1], held.bobHome[1]]) client?.release();
}

describe('shard sizes', () => {
  it('splits the connections into shards of two, the remainder on the first ones', () => {
    expect(shardSizes(10)).toEqual([2, 2, 2, 2, 2]);
    expect(shardSizes(5)).toEqual([3, 2]);
    expect(shardSizes(4)).toEqual([2, 2]);
    expect(shardSizes(1)).toEqual([1]);
  });

  it('spreads agents over the shards, each always at the same home', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const counts = [0, 0, 0, 0, 0];
    for (const id of ids) counts[homeShardOf(id, 5)] = (counts[homeShardOf(id, 5)] ?? 0) + 1;
    for (const count of counts) expect(count).toBeGreaterThan(120);
    expect(ids.map((id) => homeShardOf(id, 5))).toEqual(ids.map((id) => homeShardOf(id, 5)));
  });
});

describe('connection shards', () => {
  it("hands an agent its home shard's connections while one is free there", async () => {
    const { shards, pools } = openShards(0);
    const [ada] = agentsAtHome();
    const pids = new Set<number | undefined>();
    for (let i = 0; i < 6; i++) {
      const held = await Promise.all([shards.connect(ada), shards.connect(ada)]);
      for (const client of held) pids.add(await pidOf(client));
      for (const client of held) client.release();
    }
    expect(pids.size).toBe(2);
    expect(pools.map((pool) => pool.totalCount)).toEqual([2, 0]);
  });

  it('waits for a connection at home within its bound, though another shard has one free', async () => {
    const { shards } = openShards(60_000);
    const [ada] = agentsAtHome();
    const adaHome = await Promise.all([shards.connect(ada), shards.connect(ada)]);
    const adaHomePid = await pidOf(adaHome[0] as pg.PoolClient);
    const waiting = shards.connect(ada);
    adaHome[0]?.release();
    const next = await waiting;
    expect(await pidOf(next)).toBe(adaHomePid);
    for (const client of [next, adaHome[1]]) client?.release();
  });

  it("borrows another shard's free connection once it has waited its bound", async () => {
    const { shards } = openShards(0);
    const [ada] = agentsAtHome();
    const adaHome = await Promise.all([shards.connect(ada), shards.connect(ada)]);
    const adaHomePids = await Promise.all(adaHome.map(pidOf));
    const borrowed = await shards.connect(ada);
    expect(adaHomePids).not.toContain(await pidOf(borrowed));
    for (const client of [...adaHome, borrowed]) client.release();
  });

  it('hands a released connection to a waiter at home before an older one within its bound', async () => {
    const { shards } = openShards(60_000);
    const held = await adaThenBobWaiting(shards);
    held.bobHome[0]?.release();
    expect(await pidOf(await held.bobWaits)).toBe(held.bobPid);
    held.adaHome[0]?.release();
    expect(await pidOf(await held.adaWaits)).toBe(held.adaPid);
    await releaseAll(held);
  });

  it('hands a released connection anywhere to the oldest waiter past its bound, whatever its home', async () => {
    const { shards } = openShards(0);
    const held = await adaThenBobWaiting(shards);
    await pastTheBound();
    held.bobHome[0]?.release();
    expect(await pidOf(await held.adaWaits)).toBe(held.bobPid);
    held.adaHome[0]?.release();
    expect(await pidOf(await held.bobWaits)).toBe(held.adaPid);
    await releaseAll(held);
  });

  it('gives the login its own statements on the first shard', async () => {
    const { shards } = openShards(0);
    const { rows } = await shards.login.query<{ one: number }>('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('answers a 503 the client may retry when no connection comes within the pool`s connect timeout', async () => {
    const { shards } = openShards(0, 200);
    const { ada, adaHome, bobHome } = await holdAll(shards);
    await expect(shards.connect(ada)).rejects.toMatchObject({
      name: 'AppError',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
    for (const client of [...adaHome, ...bobHome]) client.release();
  });

  it('refuses the transactions still waiting when the engine closes its database', async () => {
    const { shards } = openShards(0);
    opened.pop();
    const { ada, adaHome, bobHome } = await holdAll(shards);
    const waiting = shards.connect(ada);
    const closed = shards.end();
    await expect(waiting).rejects.toThrow('the engine database is closing');
    for (const client of [...adaHome, ...bobHome]) client.release();
    await closed;
  });
});
