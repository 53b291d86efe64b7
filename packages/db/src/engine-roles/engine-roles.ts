// The PostgreSQL role of each agent's engine, provisioned by the manager: a login role named after the
// agent, a member of the `agentplane_engine` group whose row-level security policies (migration
// 20261122050000_engine_roles) limit it to that agent's rows, and a schema of its own for LangGraph
// checkpoints. Role statements take no bind parameters, so every name here is derived from a UUID
// that was checked first and every value is quoted. Leaves Prisma for what it cannot express (DDL).
import { randomBytes } from 'node:crypto';
import type { SqlRunner } from '../client.js';
import { quoteIdentifier } from '../embedded/database-admin.js';
import { CHECKPOINT_DATA_TABLES, checkpointTableStatements } from './checkpoint-tables.js';
import {
  checkpointSchemaName,
  ENGINE_GROUP_ROLE,
  engineRoleName,
  POOL_ROLE_PATTERN,
  randomChannelName,
} from './engine-role-names.js';
import { scramSha256Verifier } from './scram-verifier.js';

export type EngineRoleSettings = {
  /** Most connections the engine role may hold at once, across its replicas. */
  connectionLimit: number;
  /** The role's statement_timeout: no statement of an engine's holds locks for longer. */
  statementTimeoutMs: number;
  /** The role's idle_in_transaction_session_timeout: no engine session keeps a transaction open, idle, for longer. */
  idleInTransactionTimeoutMs: number;
};

async function roleExists(db: SqlRunner, role: string): Promise<boolean> {
  const rows = await db.$queryRawUnsafe<unknown[]>('SELECT 1 FROM pg_roles WHERE rolname = $1', role);
  return rows.length > 0;
}

/**
 * Creates the agent's role (NOLOGIN until credentials are issued, so that only roles with credentials
 * count against the platform's engine connections), its group membership
 * (which brings CONNECT on this database), its checkpoint schema and its NOTIFY channels; what exists already is kept, so this also
 * repairs a partial or pre-existing setup. Transactional: run it in the transaction of the agent create.
 */
export async function provisionEngineRole(db: SqlRunner, agentId: string, settings: EngineRoleSettings): Promise<void> {
  const role = quoteIdentifier(engineRoleName(agentId));
  const schema = quoteIdentifier(checkpointSchemaName(agentId));
  if (!(await roleExists(db, engineRoleName(agentId)))) {
    await db.$executeRawUnsafe(`CREATE ROLE ${role} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION`);
  }
  await applyEngineRoleSettings(db, agentId, settings);
  await db.$executeRawUnsafe(`GRANT ${quoteIdentifier(ENGINE_GROUP_ROLE)} TO ${role}`);
  await db.$executeRawUnsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  for (const statement of checkpointTableStatements(schema)) await db.$executeRawUnsafe(statement);
  await db.$executeRawUnsafe(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
  await db.$executeRawUnsafe(`GRANT SELECT ON ${schema}.checkpoint_migrations TO ${role}`);
  const tables = CHECKPOINT_DATA_TABLES.map((table) => `${schema}.${table}`).join(', ');
  await db.$executeRawUnsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${tables} TO ${role}`);
  await db.$executeRawUnsafe(
    `INSERT INTO engine_channels (agent_id, config_channel, run_channel) VALUES ($1::uuid, $2, $3)
     ON CONFLICT (agent_id) DO NOTHING`,
    agentId,
    randomChannelName(),
    randomChannelName(),
  );
}

/**
 * Sets the role's connection limit and its session defaults, from the next login on. The timeouts are
 * defaults a session could lower or turn off for itself; what they bound is a careless engine's hold on
 * the locks the manager's DDL waits for (a migration, a drop), and they never reach the manager.
 */
export function applyEngineRoleSettings(db: SqlRunner, agentId: string, settings: EngineRoleSettings): Promise<void> {
  return applyRoleSettings(db, engineRoleName(agentId), settings);
}

/** The same settings for any engine login role: an agent's, or a pool's (pool-roles.ts). */
export async function applyRoleSettings(db: SqlRunner, roleName: string, settings: EngineRoleSettings): Promise<void> {
  const role = quoteIdentifier(roleName);
  const milliseconds = (value: number) => `'${Math.max(1, Math.trunc(value))}ms'`;
  await db.$executeRawUnsafe(`ALTER ROLE ${role} CONNECTION LIMIT ${Math.trunc(settings.connectionLimit)}`);
  await db.$executeRawUnsafe(`ALTER ROLE ${role} SET statement_timeout = ${milliseconds(settings.statementTimeoutMs)}`);
  await db.$executeRawUnsafe(
    `ALTER ROLE ${role} SET idle_in_transaction_session_timeout = ${milliseconds(settings.idleInTransactionTimeoutMs)}`,
  );
}

/**
 * Drops the agent's checkpoint schema, then whatever the role owns or was granted here (large objects
 * and temporary tables it made, which PostgreSQL would otherwise refuse to drop the role over), then the
 * role. Transactional, like the agent delete.
 */
export async function dropEngineRole(db: SqlRunner, agentId: string): Promise<void> {
  await db.$executeRawUnsafe(`DROP SCHEMA IF EXISTS ${quoteIdentifier(checkpointSchemaName(agentId))} CASCADE`);
  await db.$executeRawUnsafe('DELETE FROM engine_channels WHERE agent_id = $1::uuid', agentId);
  if (!(await roleExists(db, engineRoleName(agentId)))) return;
  const role = quoteIdentifier(engineRoleName(agentId));
  // DROP OWNED needs the role's privileges, which a CREATEROLE manager takes by granting the role to
  // itself; the membership goes with the role.
  await db.$executeRawUnsafe(`GRANT ${role} TO CURRENT_USER`);
  await db.$executeRawUnsafe(`DROP OWNED BY ${role}`);
  // What the role made in another database of the server (one PUBLIC may connect to) cannot be dropped
  // from here: the role is then shut out for good instead, so that the delete still goes through.
  await db.$executeRawUnsafe(`DO $$ BEGIN
      DROP ROLE ${role};
    EXCEPTION WHEN dependent_objects_still_exist THEN
      ALTER ROLE ${role} NOLOGIN PASSWORD NULL CONNECTION LIMIT 0;
      REVOKE ${quoteIdentifier(ENGINE_GROUP_ROLE)} FROM ${role};
    END $$`);
}

export type EngineConnectionUse = {
  /**
   * Sum of the connection limits of the other engine login roles that may log in (have credentials):
   * the roles of this database's agents, and the pool roles granted CONNECT on it.
   */
  others: number;
  /** The server's max_connections. */
  serverMax: number;
};

/** What the database's engine roles with credentials may hold together, besides `exceptRole`'s. */
export async function readEngineConnectionUse(db: SqlRunner, exceptRole: string): Promise<EngineConnectionUse> {
  // Pool roles are cluster-wide: those of another database on the server (granted CONNECT there, not
  // here) do not take this database's share.
  const [row] = await db.$queryRawUnsafe<EngineConnectionUse[]>(
    `SELECT COALESCE(sum(r.rolconnlimit) FILTER (WHERE r.rolname <> $1), 0)::int AS others,
            current_setting('max_connections')::int AS "serverMax"
     FROM pg_roles r
     WHERE r.rolcanlogin AND (
       EXISTS (SELECT 1 FROM agents a WHERE r.rolname = $2 || replace(a.id::text, '-', ''))
       OR (r.rolname ~ $3 AND EXISTS (
         SELECT 1 FROM pg_database d, aclexplode(d.datacl) acl
         WHERE d.datname = current_database() AND acl.grantee = r.oid AND acl.privilege_type = 'CONNECT')))`,
    exceptRole,
    `${ENGINE_GROUP_ROLE}_`,
    POOL_ROLE_PATTERN,
  );
  return row ?? { others: 0, serverMax: 0 };
}

/**
 * Gives the role a new random password and returns it, and lets it log in. PostgreSQL checks passwords at login only:
 * from the commit on, the old password opens no new connection.
 */
export async function rotateEngineRolePassword(db: SqlRunner, agentId: string): Promise<string> {
  const password = randomBytes(32).toString('base64url');
  const verifier = scramSha256Verifier(password);
  await db.$executeRawUnsafe(`ALTER ROLE ${quoteIdentifier(engineRoleName(agentId))} LOGIN PASSWORD '${verifier}'`);
  return password;
}

/** The agents of `agentIds` whose role is missing (created before engine roles existed). */
export async function agentsWithoutEngineRole(db: SqlRunner, agentIds: string[]): Promise<string[]> {
  const names = agentIds.map(engineRoleName);
  const rows = await db.$queryRawUnsafe<{ rolname: string }[]>(
    'SELECT rolname FROM pg_roles WHERE rolname = ANY($1::text[])',
    names,
  );
  const present = new Set(rows.map((row) => row.rolname));
  return agentIds.filter((id) => !present.has(engineRoleName(id)));
}

/** True when the connected user may create roles (CREATEROLE or superuser), which provisioning needs. */
export async function canCreateRoles(db: SqlRunner): Promise<boolean> {
  const [row] = await db.$queryRawUnsafe<{ allowed: boolean }[]>(
    'SELECT rolcreaterole OR rolsuper AS allowed FROM pg_roles WHERE rolname = current_user',
  );
  return row?.allowed === true;
}
