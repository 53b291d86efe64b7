// The engine's pooled connections, split into shards of a few connections each, with every agent at
// home on one of them. PostgreSQL analyses and plans a prepared statement that row-level security
// touches again for every role it runs under, and a pool engine's connections change role at nearly
// every transaction. At home on a shard, an agent's transactions meet few other roles on each
// connection, which keeps those roles' statements prepared (role-statements.ts): an agent that used
// every connection would have its statements prepared, and planned again after each ANALYZE, on all
// of them. So a transaction waits for its home shard while the others wait there too; one that has
// waited `borrowAfterMs` takes the first connection free anywhere, so that no connection sits idle for
// long while transactions queue at another shard.
import { AppError } from '@agentplane/server-kit';
import type pg from 'pg';

/** Connections per shard: two, so that an agent's second transaction at once still finds room at home. */
export const CONNECTIONS_PER_SHARD = 2;

/**
 * How long a transaction waits for its home shard before it borrows: a few of the engine's
 * transactions' length, and less than preparing an agent's statements on another connection costs.
 */
export const BORROW_AFTER_MS = 5;

export type ConnectionShards = {
  /** A connection for the agent: at home when one is free or comes free soon, else the first free one. */
  connect: (agentId: string) => Promise<pg.PoolClient>;
  /** For the login's own statements (placements, current_user), not an agent's. */
  login: pg.Pool;
  end: () => Promise<void>;
};

type Shard = { pool: pg.Pool; size: number };

/** A transaction waiting for a connection, in the line in the order they came. */
type Waiter = { home: Shard; overdue: boolean; take: (shard: Shard) => void; refuse: (error: unknown) => void };

/** Shards over `maxConnections`, each a pg.Pool that `openPool` opens (engine-database.ts opens every connection). */
export function openConnectionShards(
  options: { maxConnections: number; sharded: boolean; borrowAfterMs?: number },
  openPool: (max: number) => pg.Pool,
): ConnectionShards {
  const { borrowAfterMs = BORROW_AFTER_MS } = options;
  const shards = (options.sharded ? shardSizes(options.maxConnections) : [options.maxConnections]).map(
    (size): Shard => ({ pool: openPool(size), size }),
  );
  const hasRoom = ({ pool, size }: Shard) => pool.idleCount > 0 || pool.totalCount < size;
  const first = shards[0] as Shard;
  const line: Waiter[] = [];
  const leave = (waiter: Waiter) => line.splice(line.indexOf(waiter), 1);
  for (const shard of shards) {
    // Emitted before the released connection is idle again: the connect in `take` is first in that
    // shard's own line, so the connection goes to the chosen waiter and to nobody else. A waiter past
    // its bound goes first, then the oldest at home here; none of them, and the connection stays idle.
    shard.pool.on('release', () => {
      const waiter = line.find((w) => w.overdue) ?? line.find((w) => w.home === shard);
      if (waiter === undefined) return;
      leave(waiter);
      waiter.take(shard);
    });
  }
  const connectTo = (shard: Shard) => shard.pool.connect().catch(refuseWhenNoneCame);
  const waitInLine = (home: Shard) =>
    new Promise<pg.PoolClient>((resolve, reject) => {
      const waiter: Waiter = {
        home,
        overdue: false,
        take: (shard) => {
          clearTimeout(borrow);
          clearTimeout(giveUp);
          connectTo(shard).then(resolve, reject);
        },
        refuse: (error) => {
          clearTimeout(borrow);
          clearTimeout(giveUp);
          reject(error);
        },
      };
      const borrow = setTimeout(() => {
        const free = shards.find(hasRoom);
        if (free === undefined) {
          waiter.overdue = true;
        } else {
          leave(waiter);
          waiter.take(free);
        }
      }, borrowAfterMs);
      const giveUp = setTimeout(() => {
        leave(waiter);
        waiter.refuse(noConnectionCame());
      }, first.pool.options.connectionTimeoutMillis ?? DEFAULT_CONNECT_TIMEOUT_MS);
      line.push(waiter);
    });
  return {
    connect: (agentId) => {
      const home = shards[homeShardOf(agentId, shards.length)] as Shard;
      return hasRoom(home) ? connectTo(home) : waitInLine(home);
    },
    login: first.pool,
    end: async () => {
      for (const waiter of line.splice(0)) waiter.refuse(new Error('the engine database is closing'));
      await Promise.all(shards.map(({ pool }) => pool.end()));
    },
  };
}

// pg-pool's only word for no connection having come within connectionTimeoutMillis: the database out
// of reach, or every connection of the shard busy.
const CONNECT_TIMEOUT = 'timeout exceeded when trying to connect';

/** How long a waiter waits when the pool was opened without connectionTimeoutMillis. */
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;

/** A connection that did not come in time is a 503 the client may retry, not a 500. */
const noConnectionCame = (cause?: unknown) =>
  new AppError('service_unavailable', 'No database connection came free in time; try again shortly.', {
    headers: { 'Retry-After': '5' },
    ...(cause === undefined ? {} : { cause }),
  });

function refuseWhenNoneCame(error: unknown): never {
  throw error instanceof Error && error.message === CONNECT_TIMEOUT ? noConnectionCame(error) : error;
}

/** `total` connections over shards of CONNECTIONS_PER_SHARD, the remainder spread over the first ones. */
export function shardSizes(total: number): number[] {
  const count = Math.max(1, Math.floor(total / CONNECTIONS_PER_SHARD));
  return Array.from({ length: count }, (_, i) => Math.floor(total / count) + (i < total % count ? 1 : 0));
}

/** A stable spread of agent ids over `count` shards (FNV-1a). */
export function homeShardOf(agentId: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < agentId.length; i++) {
    hash ^= agentId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}
