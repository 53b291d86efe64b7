// An engine's credentials: a new password for its agent's database role (the old one stops opening
// connections at commit) and the agent's key. Shared by the API route and the operator CLI.
import type { TEngineCredentials } from '@agentplane/contracts';
import {
  type AgentKeyring,
  type Db,
  type EngineRoleSettings,
  engineRoleName,
  inTransaction,
  provisionEngineRole,
  readEngineConnectionUse,
  rotateEngineRolePassword,
  type Tx,
  takeManagerLock,
} from '@agentplane/db';
import { AppError } from '@agentplane/server-kit';

export type EngineCredentialsDependencies = {
  db: Db;
  agentKeys: AgentKeyring;
  engineRoles: EngineRoleSettings;
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
 * A role with credentials may hold its connection limit: their sum stays within the platform's total,
 * so that no tenant's engines can take the connections another's need, nor the manager's. The lock
 * serialises issuances, so two at once cannot both take the last share.
 */
async function refuseBeyondConnectionsTotal(tx: Tx, deps: EngineCredentialsDependencies, agentId: string) {
  await takeManagerLock(tx, 'engine-credentials');
  const use = await readEngineConnectionUse(tx, agentId);
  const total = deps.engineConnectionsTotal ?? Math.floor(use.serverMax / 2);
  if (use.others + deps.engineRoles.connectionLimit > total) {
    throw new AppError(
      'conflict',
      `Engines with credentials may hold ${total} database connections together, and ${use.others} are given out: ` +
        `no room for another ${deps.engineRoles.connectionLimit} (ENGINE_DB_CONNECTION_LIMIT). Delete an agent whose ` +
        'engine is not needed, or ask the operator to raise ENGINE_DB_CONNECTIONS_TOTAL.',
    );
  }
}

/** `workspaceId` scopes the lookup (the API); the operator CLI may name any agent. */
export async function issueEngineCredentials(
  deps: EngineCredentialsDependencies,
  options: { agentId: string; workspaceId?: string },
): Promise<TEngineCredentials> {
  const password = await inTransaction(deps.db, async (tx) => {
    // The row lock orders this against a delete of the agent, which drops the role.
    const [agent] = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM agents
      WHERE id = ${options.agentId}::uuid
        AND (${options.workspaceId ?? null}::uuid IS NULL OR workspace_id = ${options.workspaceId ?? null}::uuid)
      FOR UPDATE`;
    if (!agent) throw new AppError('not_found', 'No such agent.');
    await refuseBeyondConnectionsTotal(tx, deps, agent.id);
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
