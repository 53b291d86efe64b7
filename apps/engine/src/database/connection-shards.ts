// The engine's pooled connections, split into shards of a few connections each, with every agent at
// home on one of them. PostgreSQL analyses and plans a prepared statement that row-level security
// touches again whenever it runs under another role than the one it was prepared under, and a pool
// engine's connections change role at nearly every transaction. At home on a shard, an agent's
// transactions meet few other roles on each connection, which can then keep every one of those
// roles' statements prepared (role-statements.ts). When the home shard has no connection to spare,
// the agent borrows one from a shard that has, rather than wait while another sits idle.
import { AppError } from '@agentplane/server-kit';
import type pg from 'pg';

/** Connections per shard: two, so that an agent's second transaction at once still finds room at home. */
export const CONNECTIONS_PER_SHARD = 2;

export type ConnectionShards = {
  /** A connection for the agent: at home when one is free there, else any free one, else the next at home. */
  connect: (agentId: string) => Promise<pg.PoolClient>;
  /** For the login's own statements (placements, current_user), not an agent's. */
  login: pg.Pool;
  end: () => Promise<void>;
};

type Shard = { pool: pg.Pool; size: number };

/** Shards over `maxConnections`, each a pg.Pool that `openPool` opens (engine-database.ts opens every connection). */
export function openConnectionShards(
  maxConnections: number,
  sharded: boolean,
  openPool: (max: number) => pg.Pool,
): ConnectionShards {
  const shards = (sharded ? shardSizes(maxConnections) : [maxConnections]).map(
    (size): Shard => ({ pool: openPool(size), size }),
  );
  const hasRoom = ({ pool, size }: Shard) => pool.idleCount > 0 || pool.totalCount < size;
  const first = shards[0] as Shard;
  return {
    connect: (agentId) => {
      const home = shards[homeShardOf(agentId, shards.length)] as Shard;
      const shard = hasRoom(home) ? home : (shards.find(hasRoom) ?? home);
      return shard.pool.connect().catch(refuseWhenNoneCame);
    },
    login: first.pool,
    end: async () => {
      await Promise.all(shards.map(({ pool }) => pool.end()));
    },
  };
}

// pg-pool's only word for no connection having come within connectionTimeoutMillis: every one busy (a
// burst of one agent's requests waits at its home shard), or the database out of reach.
const CONNECT_TIMEOUT = 'timeout exceeded when trying to connect';

/** A connection that did not come in time is a 503 the client may retry, not a 500. */
function refuseWhenNoneCame(error: unknown): never {
  if (error instanceof Error && error.message === CONNECT_TIMEOUT) {
    throw new AppError('service_unavailable', 'No database connection came free in time; try again shortly.', {
      headers: { 'Retry-After': '5' },
      cause: error,
    });
  }
  throw error;
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
