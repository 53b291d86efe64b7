// Agents placed on a pool of the bench's own (benchmarks 7 to 9), made straight in the database: the
// manager makes an agent in a transaction of its own (its row, its published config, its role, a
// checkpoint schema of four tables), which for 10,000 agents would take longer than the whole bench
// should. So the manager makes one agent, and the bench copies it thousands at a time: its row and its
// published config (with the copy's id), NOTIFY channels and a role per copy, each role granted to the
// pool's role as the manager's placement grants it. The copies have no checkpoint schema, which only
// LangGraph agents use; theirs are LLM agents.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  createPrisma,
  type Db,
  derivePoolKey,
  ENGINE_GROUP_ROLE,
  engineRoleName,
  poolRoleName,
  provisionPoolRole,
  rotatePoolRolePassword,
} from '@agentplane/db';
import type { PoolCredentials } from './engine-process.js';

export type BenchPool = {
  credentials: PoolCredentials;
  /** The copies, all placed on the pool. */
  agentIds: string[];
  /** How long the copies and their roles took to make. */
  placementSeconds: number;
  /** Deletes the copies and drops their roles and the pool's: role names are the whole server's. */
  remove: () => Promise<void>;
};

// CREATE ROLE statements per DO block: one block is one round trip and one transaction.
const ROLES_PER_BLOCK = 1000;

// Role names come from UUIDs and pool names checked by engineRoleName and poolRoleName: nothing in them
// needs escaping inside the quotes.
const quoted = (name: string) => `"${name}"`;

/** `count` copies of `templateAgentId` placed on a new pool, whose credentials an engine starts with. */
export async function placeAgentCopies(options: {
  /** The bench database, as its owner (a user that may create roles). */
  databaseUrl: string;
  /** The manager's SECRETS_KEY, from which the pool's key is derived. */
  platformKey: string;
  templateAgentId: string;
  count: number;
  /** What the pool's engine may hold at once (ENGINE_POOL_DB_CONNECTIONS); its role's limit leaves room for LISTEN. */
  dbConnections: number;
}): Promise<BenchPool> {
  const db = createPrisma(options.databaseUrl, { maxConnections: 2 });
  // Pool roles are the whole server's: a name of this run's own.
  const pool = `bench_${randomBytes(6).toString('hex')}`;
  const agentIds = Array.from({ length: options.count }, () => randomUUID());
  const remove = async () => {
    await removeCopies(db, pool, agentIds);
    await db.$disconnect();
  };
  try {
    const started = performance.now();
    await provisionPoolRole(db, pool, {
      connectionLimit: options.dbConnections + 2,
      statementTimeoutMs: 60_000,
      idleInTransactionTimeoutMs: 60_000,
    });
    await copyRows(db, options.templateAgentId, agentIds);
    for (let from = 0; from < agentIds.length; from += ROLES_PER_BLOCK) {
      await createPlacedRoles(db, agentIds.slice(from, from + ROLES_PER_BLOCK), pool);
    }
    const password = await rotatePoolRolePassword(db, pool);
    const placementSeconds = (performance.now() - started) / 1000;
    const url = new URL(options.databaseUrl);
    url.username = poolRoleName(pool);
    url.password = password;
    return {
      credentials: {
        ENGINE_POOL: pool,
        DATABASE_URL: url.toString(),
        ENGINE_POOL_KEY: derivePoolKey(options.platformKey, pool),
      },
      agentIds,
      placementSeconds,
      remove,
    };
  } catch (error) {
    await remove();
    throw error;
  }
}

async function copyRows(db: Db, templateId: string, agentIds: string[]): Promise<void> {
  const agents = await db.$executeRawUnsafe(
    `INSERT INTO agents (id, workspace_id, name, framework, config)
     SELECT copy.id, a.workspace_id, a.name || ' ' || copy.n, a.framework, a.config
     FROM agents a, unnest($2::uuid[]) WITH ORDINALITY AS copy(id, n) WHERE a.id = $1::uuid`,
    templateId,
    agentIds,
  );
  // The config names its agent, and an engine serves a config only for the agent it names.
  const configs = await db.$executeRawUnsafe(
    `INSERT INTO engine_configs (agent_id, workspace_id, version, config)
     SELECT copy.id, c.workspace_id, 1, jsonb_set(c.config, '{agent,id}', to_jsonb(copy.id::text))
     FROM engine_configs c, unnest($2::uuid[]) AS copy(id) WHERE c.agent_id = $1::uuid`,
    templateId,
    agentIds,
  );
  if (agents !== agentIds.length || configs !== agentIds.length) {
    throw new Error(`agent ${templateId} has no published config to copy`);
  }
  await db.$executeRawUnsafe(
    `INSERT INTO engine_channels (agent_id, config_channel, run_channel)
     SELECT id, 'agent_' || replace(gen_random_uuid()::text, '-', ''), 'agent_' || replace(gen_random_uuid()::text, '-', '')
     FROM unnest($1::uuid[]) AS id`,
    agentIds,
  );
}

/** Each agent's role, a member of the engines' group as provisionEngineRole makes it, granted to the pool's role. */
async function createPlacedRoles(db: Db, agentIds: string[], pool: string): Promise<void> {
  const roles = agentIds.map((id) => quoted(engineRoleName(id)));
  const creates = roles.map((role) => `CREATE ROLE ${role} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;`);
  await db.$executeRawUnsafe(`DO $$ BEGIN
    ${creates.join('\n')}
    GRANT ${quoted(ENGINE_GROUP_ROLE)} TO ${roles.join(', ')};
    GRANT ${roles.join(', ')} TO ${quoted(poolRoleName(pool))};
  END $$`);
}

async function removeCopies(db: Db, pool: string, agentIds: string[]): Promise<void> {
  await db.$executeRawUnsafe('DELETE FROM agents WHERE id = ANY($1::uuid[])', agentIds);
  await db.$executeRawUnsafe('DELETE FROM engine_channels WHERE agent_id = ANY($1::uuid[])', agentIds);
  const existing = await db.$queryRawUnsafe<{ rolname: string }[]>(
    'SELECT rolname FROM pg_roles WHERE rolname = ANY($1::text[])',
    [...agentIds.map(engineRoleName), poolRoleName(pool)],
  );
  const names = new Set(existing.map((row) => row.rolname));
  const agentRoles = agentIds.map(engineRoleName).filter((name) => names.has(name));
  for (let from = 0; from < agentRoles.length; from += ROLES_PER_BLOCK) {
    await db.$executeRawUnsafe(
      `DROP ROLE ${agentRoles
        .slice(from, from + ROLES_PER_BLOCK)
        .map(quoted)
        .join(', ')}`,
    );
  }
  if (names.has(poolRoleName(pool))) {
    // The pool's role holds CONNECT and EXECUTE grants here, which DROP OWNED revokes.
    await db.$executeRawUnsafe(`DROP OWNED BY ${quoted(poolRoleName(pool))}`);
    await db.$executeRawUnsafe(`DROP ROLE ${quoted(poolRoleName(pool))}`);
  }
}
