// An engine connects to PostgreSQL as its agent's own role, which row-level security limits to that
// agent's rows. Started with any other user (the platform's DATABASE_URL, the old way), it stops
// at once and says where its credentials come from.
import { engineRoleName, poolRoleName } from '@agentplane/db/engine-roles';
import { ConfigError, type Logger } from '@agentplane/server-kit';
import { GET_ENGINE_CREDENTIALS, GET_POOL_CREDENTIALS } from '../credentials-env.js';
import type { EngineDatabase } from '../database/engine-database.js';

// invalid_password, invalid_authorization_specification: the URL's credentials, not the network.
const REFUSED_LOGIN = new Set(['28P01', '28000']);

export const isRefusedLogin = (error: unknown) => REFUSED_LOGIN.has((error as { code?: string }).code ?? '');

// A session outlives the drop of its role, but loses its grants (insufficient_privilege, 42501) and
// its name (current_user: "invalid role OID", 42704). A pool's SET ROLE to an agent role no longer
// granted to it is refused (42501), and to one dropped with its agent names no role (22023).
const ROLE_GONE = new Set(['42501', '42704', '22023']);

/** The database no longer takes this engine's credentials: its agent was deleted, or they were rotated. */
export const isRevokedCredential = (error: unknown) =>
  isRefusedLogin(error) || ROLE_GONE.has((error as { code?: string }).code ?? '');

/** Who the engine must log in as: an agent's role (dedicated, file mode) or a pool's. */
export type ExpectedLogin = {
  role: string;
  what: string;
  credentials: string;
  /** A pool's login serves many agents, under their roles in turn; an agent's own serves that one. */
  serves: 'one agent' | 'many agents';
};

export const agentLogin = (agentId: string): ExpectedLogin => ({
  role: engineRoleName(agentId),
  what: "this agent's engine role",
  credentials: GET_ENGINE_CREDENTIALS,
  serves: 'one agent',
});

export const poolLogin = (pool: string): ExpectedLogin => ({
  role: poolRoleName(pool),
  what: "this pool's role",
  credentials: GET_POOL_CREDENTIALS,
  serves: 'many agents',
});

/**
 * Throws a ConfigError when DATABASE_URL logs in as another user, or its password is refused. An
 * unreachable database is not the URL's fault: the engine starts degraded, and serves no agent until
 * the database answers as that role.
 */
export async function verifyEngineRole(
  database: Pick<EngineDatabase, 'currentUser'>,
  expected: ExpectedLogin,
  logger: Logger,
): Promise<void> {
  let user: string;
  try {
    user = await database.currentUser();
  } catch (error) {
    if (isRefusedLogin(error)) {
      throw new ConfigError(
        `DATABASE_URL: the database refused this engine's login (${(error as { code: string }).code}); each request for credentials replaces the password, so ${expected.credentials}`,
      );
    }
    logger.warn({ err: error }, 'the database is unreachable at start; its role is checked when it answers');
    return;
  }
  if (user !== expected.role) {
    throw new ConfigError(
      `DATABASE_URL connects as "${user}", not as ${expected.what} "${expected.role}": an engine never runs with the platform's database user; ${expected.credentials}`,
    );
  }
}
