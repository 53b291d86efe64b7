import { canCreateRoles, type Db } from '@agentplane/db';
import { ConfigError } from '@agentplane/server-kit';

export const MISSING_CREATEROLE =
  "The manager's database user (DATABASE_URL) lacks CREATEROLE, which it needs to give each agent's engine a " +
  'database role of its own. Grant it: ALTER ROLE <user> CREATEROLE (SUPERUSER is not needed; on managed ' +
  'PostgreSQL the master user usually has CREATEROLE).';

/** Stops the manager at start-up, saying what is missing, when it could not provision engine roles. */
export async function requireCreateRole(db: Db): Promise<void> {
  if (!(await canCreateRoles(db))) throw new ConfigError(MISSING_CREATEROLE);
}
