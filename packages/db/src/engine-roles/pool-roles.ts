// The login roles of engine pools (engine-role-names.ts poolRoleName), made by the manager. A pool role
// is NOINHERIT and granted nothing but CONNECT, EXECUTE on engine_placements() and the roles of the
// agents placed on it: by itself it reads and writes nothing, and it acts for an agent only inside a
// transaction that did SET LOCAL ROLE to that agent's role. Placing an agent grants its role to the
// pool's; moving it revokes the grant, so the old pool's next SET ROLE for it fails.
import { randomBytes } from 'node:crypto';
import type { SqlRunner } from '../client.js';
import { quoteIdentifier } from '../embedded/database-admin.js';
import { ENGINE_GROUP_ROLE, engineRoleName, POOL_ROLE_PATTERN, poolRoleName } from './engine-role-names.js';
import { applyRoleSettings, type EngineRoleSettings } from './engine-roles.js';
import { scramSha256Verifier } from './scram-verifier.js';

async function roleExists(db: SqlRunner, role: string): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<unknown[]>('SELECT 1 FROM pg_roles WHERE rolname = $1', role);
  return rows.length > 0;
}

/** Makes the pool's role (NOLOGIN until credentials are issued), or brings an existing one to `settings`. */
export async function provisionPoolRole(db: SqlRunner, pool: string, settings: EngineRoleSettings): Promise<void> {
  const name = poolRoleName(pool);
  const role = quoteIdentifier(name);
  if (!(await roleExists(db, name))) {
    await db.$executeRawUnsafe(
      `CREATE ROLE ${role} NOLOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION`,
    );
  }
  await applyRoleSettings(db, name, settings);
  await db.$executeRawUnsafe(`GRANT CONNECT ON DATABASE ${quoteIdentifier(await currentDatabase(db))} TO ${role}`);
  await db.$executeRawUnsafe(`GRANT EXECUTE ON FUNCTION engine_placements() TO ${role}`);
}

async function currentDatabase(db: SqlRunner): Promise<string> {
  const [row] = await db.$queryRawUnsafe<{ name: string }[]>('SELECT current_database() AS name');
  if (row === undefined) throw new Error('current_database() answered nothing');
  return row.name;
}

/** The pools whose roles hold the agent's role now (one, or none for a dedicated agent). */
export async function poolsHoldingAgent(db: SqlRunner, agentId: string): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ rolname: string }[]>(
    `SELECT p.rolname FROM pg_auth_members m
       JOIN pg_roles a ON a.oid = m.roleid
       JOIN pg_roles p ON p.oid = m.member
     WHERE a.rolname = $1 AND p.rolname ~ $2`,
    engineRoleName(agentId),
    POOL_ROLE_PATTERN,
  );
  return rows.map((row) => row.rolname.slice('agentplane_pool_'.length)).sort();
}

/**
 * Serves the agent from `pool` (a pool name) or from a dedicated engine (undefined): revokes its role
 * from every other pool role, then grants it to the pool's, which must exist (provisionPoolRole).
 * Transactional, like the agent create or update it belongs to.
 */
export async function placeAgentRole(db: SqlRunner, agentId: string, pool: string | undefined): Promise<void> {
  const agentRole = quoteIdentifier(engineRoleName(agentId));
  for (const held of await poolsHoldingAgent(db, agentId)) {
    if (held !== pool) await db.$executeRawUnsafe(`REVOKE ${agentRole} FROM ${quoteIdentifier(poolRoleName(held))}`);
  }
  if (pool !== undefined) await db.$executeRawUnsafe(`GRANT ${agentRole} TO ${quoteIdentifier(poolRoleName(pool))}`);
}

/**
 * The agents whose role is not held by exactly the pool role their placement names (agents.deployment_pool;
 * none for a dedicated agent): placed while that pool's role did not exist yet, or granted by hand.
 * Agents without a role (not provisioned yet) are left to the engine-role upgrade.
 */
export async function readMisplacedAgents(db: SqlRunner): Promise<{ agentId: string; pool: string | null }[]> {
  return db.$queryRawUnsafe<{ agentId: string; pool: string | null }[]>(
    `WITH held AS (
       -- DISTINCT: since PostgreSQL 16 a membership granted by two grantors is two rows.
       SELECT m.roleid, array_agg(DISTINCT substr(p.rolname, length('agentplane_pool_') + 1)) AS pools
       FROM pg_auth_members m JOIN pg_roles p ON p.oid = m.member
       WHERE p.rolname ~ $1
       GROUP BY m.roleid)
     SELECT a.id::text AS "agentId", a.deployment_pool AS pool
     FROM agents a
       JOIN pg_roles r ON r.rolname = $2 || replace(a.id::text, '-', '')
       LEFT JOIN held h ON h.roleid = r.oid
     WHERE COALESCE(h.pools, '{}') IS DISTINCT FROM
           CASE WHEN a.deployment_pool IS NULL THEN '{}'::text[] ELSE ARRAY[a.deployment_pool] END
     ORDER BY a.id`,
    POOL_ROLE_PATTERN,
    `${ENGINE_GROUP_ROLE}_`,
  );
}

/** A new random password for the pool's role, which may log in from the commit on. */
export async function rotatePoolRolePassword(db: SqlRunner, pool: string): Promise<string> {
  const password = randomBytes(32).toString('base64url');
  await db.$executeRawUnsafe(
    `ALTER ROLE ${quoteIdentifier(poolRoleName(pool))} LOGIN PASSWORD '${scramSha256Verifier(password)}'`,
  );
  return password;
}
