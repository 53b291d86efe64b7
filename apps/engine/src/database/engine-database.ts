// Every PostgreSQL connection the engine holds: at most `maxConnections` pooled ones, shared by all
// the agents it serves (connection-shards.ts), and one LISTEN connection. Agents reach the pool only through their own
// handle (agent-db.ts), which runs each statement under their role; the login itself (a pool's role,
// or a dedicated engine's agent role) is used here for engine_placements() and LISTEN only.
import type { Logger } from '@agentplane/server-kit';
import pg from 'pg';
import { type AgentDb, createAgentDb } from './agent-db.js';
import { openConnectionShards } from './connection-shards.js';
import { type SharedListener, startSharedListener } from './shared-listener.js';

/** An agent the login may serve, as engine_placements() names it. */
export type Placement = {
  agentId: string;
  /** Its engine_configs version; undefined before its first publish. */
  configVersion: bigint | undefined;
  configChannel: string;
  runChannel: string;
  /** Runs wait for an engine: a pending run, or a running one whose lease ran out. */
  hasWork: boolean;
};

export type EngineDatabase = {
  /** The agent's handle; the only way to its rows. */
  forAgent: (agentId: string) => AgentDb;
  /** The agents this login serves now. */
  placements: () => Promise<Placement[]>;
  /** The login's role name (to check it is the one the engine was started for). */
  currentUser: () => Promise<string>;
  listener: SharedListener;
  end: () => Promise<void>;
};

// A statement must fail rather than hang when the database is unreachable, so /health can say so.
const DB_TIMEOUT_MS = 5000;

export function openEngineDatabase(options: {
  url: string;
  maxConnections: number;
  /** Whether agents get a home shard of the connections (connection-shards.ts): worth it for a pool's many roles only. */
  sharded: boolean;
  /** The role the engine must be logged in as; logged in as any other, it is told of no agent. */
  loginRole: string;
  logger: Logger;
}): EngineDatabase {
  const { url, logger } = options;
  const shards = openConnectionShards(options, (max) => {
    const pool = new pg.Pool({
      connectionString: url,
      max,
      connectionTimeoutMillis: DB_TIMEOUT_MS,
      query_timeout: 10_000,
      // A named statement is planned once per role and connection (role-statements.ts), generically:
      // PostgreSQL's default plans it anew with its values for its first five runs before settling on
      // the generic plan, and a pool's connections meet hundreds of roles, so five times each. The
      // engine's named statements are keyed lookups, whose generic plan it settles on anyway.
      options: '-c plan_cache_mode=force_generic_plan',
    });
    pool.on('error', (error) => logger.debug({ err: error }, 'idle database connection lost'));
    // pg.Pool hears a connection's 'error' only while it is idle: one lost while checked out (the server
    // restarting, a terminated backend) would otherwise end the process. Its statement fails on its own.
    pool.on('connect', (client) => {
      client.on('error', (error) => logger.debug({ err: error }, 'database connection lost while in use'));
    });
    return pool;
  });
  const pool = shards.login;
  const listener = startSharedListener({
    connect: () => new pg.Client({ connectionString: url, connectionTimeoutMillis: DB_TIMEOUT_MS, keepAlive: true }),
    logger,
  });
  return {
    forAgent: (agentId) => createAgentDb(() => shards.connect(agentId), agentId),
    placements: async () => {
      const { rows } = await pool.query<{
        agent_id: string;
        config_version: string | null;
        config_channel: string;
        run_channel: string;
        has_work: boolean;
      }>(
        // Checked on every read, not only at start: an engine that found the database down at start
        // could not check its login then.
        'SELECT agent_id, config_version::text, config_channel, run_channel, has_work FROM engine_placements() WHERE current_user = $1',
        [options.loginRole],
      );
      return rows.map((row) => ({
        agentId: row.agent_id,
        configVersion: row.config_version === null ? undefined : BigInt(row.config_version),
        configChannel: row.config_channel,
        runChannel: row.run_channel,
        hasWork: row.has_work,
      }));
    },
    currentUser: async () => {
      const { rows } = await pool.query<{ user: string }>('SELECT current_user AS user');
      return rows[0]?.user ?? '';
    },
    listener,
    end: async () => {
      await listener.stop();
      await shards.end();
    },
  };
}
