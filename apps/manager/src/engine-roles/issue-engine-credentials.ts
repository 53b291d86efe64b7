// Engines' credentials, for the operator alone (the CLI, or a platform operator through the API): a
// new password for the database role an engine logs in as (the old one stops opening connections at
// commit) and the key that opens the engine configs it serves. A dedicated engine logs in as its
// agent's role with the agent's key; a pool's engines as the pool's role with the pool's key.
import type { TEngineCredentials, TPoolCredentials } from '@agentplane/contracts';
import {
  type AgentKeyring,
  type Db,
  type EngineRoleSettings,
  engineRoleName,
  inTransaction,
  poolRoleName,
  provisionEngineRole,
  provisionPoolRole,
  readEngineConnectionUse,
  rotateEngineRolePassword,
  rotatePoolRolePassword,
  type Tx,
  takeManagerLock,
} from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';
import type { EnginePoolSettings } from '../engine-pools/engine-pool-settings.js';

export type EngineCredentialsDependencies = {
  db: Db;
  agentKeys: AgentKeyring;
  engineRoles: EngineRoleSettings;
  /** ENGINE_POOLS, and the settings of the pools' roles. */
  enginePools: EnginePoolSettings;
  /** The URL whose host, port, database and options the engine's URL keeps (ENGINE_DATABASE_URL or DATABASE_URL). */
  engineDatabaseUrl: string;
  /** Most connections the engine roles with credentials may hold together (ENGINE_DB_CONNECTIONS_TOTAL); unset: half the server's max_connections. */
  engineConnectionsTotal?: number;
};

/** The base URL with the role's user and password in place of whatever it carried. */
export function engineDatabaseUrlFor(baseUrl: string, user: string, password: string): string {
  const url = new URL(baseUrl);
  url.username = encodeURIComponent(user);
  url.password = encodeURIComponent(password);
  return url.toString();
}

/**
 * A role with credentials may hold its connection limit: their sum, agents' roles and pools' alike,
 * stays within the platform's total, so that no tenant's engines can take the connections another's
 * need, nor the manager's. The lock serialises issuances, so two at once cannot both take the last share.
 */
async function refuseBeyondConnectionsTotal(
  tx: Tx,
  deps: EngineCredentialsDependencies,
  role: { name: string; connectionLimit: number; setting: string },
) {
  await takeManagerLock(tx, 'engine-credentials');
  const use = await readEngineConnectionUse(tx, role.name);
  const total = deps.engineConnectionsTotal ?? Math.floor(use.serverMax / 2);
  if (use.others + role.connectionLimit > total) {
    throw new AppError(
      'conflict',
      `Engines with credentials may hold ${total} database connections together, and ${use.others} are given out: ` +
        `no room for another ${role.connectionLimit} (${role.setting}). Delete an agent whose ` +
        'engine is not needed, or ask the operator to raise ENGINE_DB_CONNECTIONS_TOTAL.',
    );
  }
}

/** A dedicated agent's engine credentials; any agent's, since only operators get here. */
export async function issueEngineCredentials(
  deps: EngineCredentialsDependencies,
  options: { agentId: string },
): Promise<TEngineCredentials> {
  const password = await inTransaction(deps.db, async (tx) => {
    // The row lock orders this against a delete of the agent, which drops the role, and against a move.
    const [agent] = await tx.$queryRaw<{ id: string; pool: string | null }[]>`
      SELECT id, deployment_pool AS pool FROM agents WHERE id = ${options.agentId}::uuid FOR UPDATE`;
    if (!agent) throw new AppError('not_found', 'No such agent.');
    if (agent.pool !== null) {
      // Its config is sealed with the pool's key, which an engine of its own would not hold.
      throw new AppError(
        'conflict',
        `The agent is served by the pool "${agent.pool}", whose engines need no credentials of the agent's: ` +
          'move it to deployment {"mode": "dedicated"} first to run an engine of its own.',
      );
    }
    await refuseBeyondConnectionsTotal(tx, deps, {
      name: engineRoleName(agent.id),
      connectionLimit: deps.engineRoles.connectionLimit,
      setting: 'ENGINE_DB_CONNECTION_LIMIT',
    });
    // Idempotent: also gives the role to an agent created before engine roles, should the upgrade not have yet.
    await provisionEngineRole(tx, agent.id, deps.engineRoles);
    return rotateEngineRolePassword(tx, agent.id);
  });
  return {
    agent_id: options.agentId,
    database_url: engineDatabaseUrlFor(deps.engineDatabaseUrl, engineRoleName(options.agentId), password),
    agent_key: deps.agentKeys.keyFor(options.agentId),
  };
}

/** The credentials of the engines of one of ENGINE_POOLS, whose role is made if it is not there yet. */
export async function issuePoolCredentials(
  deps: EngineCredentialsDependencies,
  options: { pool: string },
): Promise<TPoolCredentials> {
  const { pool } = options;
  if (!deps.enginePools.urls.has(pool)) {
    throw new AppError('not_found', `No engine pool is named "${pool}" in ENGINE_POOLS.`);
  }
  const password = await inTransaction(deps.db, async (tx) => {
    await refuseBeyondConnectionsTotal(tx, deps, {
      name: poolRoleName(pool),
      connectionLimit: deps.enginePools.roles.connectionLimit,
      setting: 'ENGINE_POOL_DB_CONNECTION_LIMIT',
    });
    // As the start-up does, and apart from it: two changes to one role at once, one of them fails.
    await takeManagerLock(tx, 'engine-pools');
    await provisionPoolRole(tx, pool, deps.enginePools.roles);
    return rotatePoolRolePassword(tx, pool);
  });
  return {
    pool,
    database_url: engineDatabaseUrlFor(deps.engineDatabaseUrl, poolRoleName(pool), password),
    pool_key: deps.agentKeys.poolKeyFor(pool),
  };
}
