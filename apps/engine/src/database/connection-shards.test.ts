// The engine's connections in shards: an agent's transactions go to its home shard while it has a
// connection to spare, to another shard's spare one when it has none, and wait at home when no shard
// has one. Real connections, told apart by their backend's pid.
import { createTestDatabase, type TestDatabase } from '@agentplane/db/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { type ConnectionShards, homeShardOf, openConnectionShards, shardSizes } from './connection-shards.js';

let database: TestDatabase;
let shards: ConnectionShards;
const opened: pg.Pool[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  shards = openConnectionShards(4, true, (max) => {
    const pool = new pg.Pool({ connectionString: database.url, max });
    pool.on('error', () => {});
    opened.push(pool);
    return pool;
  });
});

afterAll(async () => {
  await shards?.end();
  await database?.drop();
});

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
    const [ada] = agentsAtHome();
    const pids = new Set<number | undefined>();
    for (let i = 0; i < 6; i++) {
      const held = await Promise.all([shards.connect(ada), shards.connect(ada)]);
      for (const client of held) pids.add(await pidOf(client));
      for (const client of held) client.release();
    }
    expect(pids.size).toBe(2);
    expect(opened.map((pool) => pool.totalCount)).toEqual([2, 0]);
  });

  it("borrows another shard's connection when home has none to spare, and waits at home when no shard has one", async () => {
    const [ada, bob] = agentsAtHome();
    const adaHome = await Promise.all([shards.connect(ada), shards.connect(ada)]);
    const adaHomePids = await Promise.all(adaHome.map(pidOf));
    const borrowed = await shards.connect(ada);
    expect(adaHomePids).not.toContain(await pidOf(borrowed));
    const bobHome = await shards.connect(bob);
    // Every connection is held: the next one for ada waits for her home shard.
    const waiting = shards.connect(ada);
    adaHome[0]?.release();
    const next = await waiting;
    expect(adaHomePids).toContain(await pidOf(next));
    for (const client of [next, adaHome[1], borrowed, bobHome]) client?.release();
  });

  it('gives the login its own statements on the first shard', async () => {
    const { rows } = await shards.login.query<{ one: number }>('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
  });

  it('answers a 503 the client may retry when no connection comes within the pool`s connect timeout', async () => {
    const one = openConnectionShards(1, false, (max) => {
      const pool = new pg.Pool({ connectionString: database.url, max, connectionTimeoutMillis: 200 });
      pool.on('error', () => {});
      return pool;
    });
    const held = await one.connect('ada');
    try {
      await expect(one.connect('ada')).rejects.toMatchObject({
        name: 'AppError',
        status: 503,
        headers: { 'Retry-After': '5' },
      });
    } finally {
      held.release();
      await one.end();
    }
  });
});
