// An engine connects to PostgreSQL as its agent's own role, which row-level security limits to that
// agent's rows. Started with any other user (the platform's DATABASE_URL, the old way), it stops
// at once and says where its credentials come from.
import { engineRoleName } from '@agentplane/db/engine-roles';
import { ConfigError, type Logger } from '@agentplane/server-kit';
import pg from 'pg';
import { GET_ENGINE_CREDENTIALS } from '../credentials-env.js';

// invalid_password, invalid_authorization_specification: the URL's credentials, not the network.
const REFUSED_LOGIN = new Set(['28P01', '28000']);

export const isRefusedLogin = (error: unknown) => REFUSED_LOGIN.has((error as { code?: string }).code ?? '');

// A session outlives the drop of its role, but loses its grants (insufficient_privilege, 42501) and
// its name (current_user: "invalid role OID", 42704).
const ROLE_GONE = new Set(['42501', '42704']);

/** The database no longer takes this engine's credentials: its agent was deleted, or they were rotated. */
export const isRevokedCredential = (error: unknown) =>
  isRefusedLogin(error) || ROLE_GONE.has((error as { code?: string }).code ?? '');
const CONNECT_TIMEOUT_MS = 5000;

/**
 * Throws a ConfigError when DATABASE_URL logs in as another user, or its password is refused. An
 * unreachable database is not the URL's fault: the engine starts degraded, and its config reads
 * carry the same check (db-config-source).
 */
export async function verifyEngineRole(databaseUrl: string, agentId: string, logger: Logger): Promise<void> {
  const expected = engineRoleName(agentId);
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  let user: string | undefined;
  try {
    await client.connect();
    ({
      rows: [{ user } = { user: undefined }],
    } = await client.query<{ user: string }>('SELECT current_user AS user'));
  } catch (error) {
    if (isRefusedLogin(error)) {
      throw new ConfigError(
        `DATABASE_URL: the database refused this engine's login (${(error as { code: string }).code}); each request for credentials replaces the password, so ${GET_ENGINE_CREDENTIALS}`,
      );
    }
    logger.warn({ err: error }, 'the database is unreachable at start; its role is checked when it answers');
    return;
  } finally {
    await client.end().catch(() => undefined);
  }
  if (user !== expected) {
    throw new ConfigError(
      `DATABASE_URL connects as "${user}", not as this agent's engine role "${expected}": an engine never runs with the platform's database user; ${GET_ENGINE_CREDENTIALS}`,
    );
  }
}
