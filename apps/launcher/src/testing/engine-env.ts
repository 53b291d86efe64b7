// What a cross-service test starts an engine with: the credentials an operator issues with the manager's
// CLI, run on the manager's environment (a dedicated agent's own role and key, or a pool's), never the
// platform's DATABASE_URL or SECRETS_KEY. No tenant may ask the API for them.
import { issueAgentEngineCredentials, issuePoolCredentials } from '../manager-cli.js';

export type EngineCredentialsEnv = { AGENT_ID: string; DATABASE_URL: string; AGENT_KEY: string };
export type PoolCredentialsEnv = { ENGINE_POOL: string; DATABASE_URL: string; ENGINE_POOL_KEY: string };

/** A dedicated agent's engine credentials, as engine env. */
export async function engineEnvFor(managerEnv: NodeJS.ProcessEnv, agentId: string): Promise<EngineCredentialsEnv> {
  const credentials = await issueAgentEngineCredentials(managerEnv, agentId);
  return { AGENT_ID: credentials.agent_id, DATABASE_URL: credentials.database_url, AGENT_KEY: credentials.agent_key };
}

/** A pool's engine credentials, as engine env; `managerEnv` must list the pool in ENGINE_POOLS. */
export async function poolEnvFor(managerEnv: NodeJS.ProcessEnv, pool: string): Promise<PoolCredentialsEnv> {
  const credentials = await issuePoolCredentials(managerEnv, pool);
  return {
    ENGINE_POOL: credentials.pool,
    DATABASE_URL: credentials.database_url,
    ENGINE_POOL_KEY: credentials.pool_key,
  };
}
