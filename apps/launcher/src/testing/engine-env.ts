// What a cross-service test starts an engine with: the credentials the manager issues for its agent
// (its own database role and agent key), never the platform's DATABASE_URL or SECRETS_KEY.
import type { ManagerClient } from '@agentplane/manager-client';

export type EngineCredentialsEnv = { AGENT_ID: string; DATABASE_URL: string; AGENT_KEY: string };

/** Asks the manager (as a workspace admin or owner) for the agent's engine credentials, as engine env. */
export async function engineEnvFor(api: ManagerClient, agentId: string): Promise<EngineCredentialsEnv> {
  const credentials = await api.issueEngineCredentials(agentId);
  return {
    AGENT_ID: credentials.agent_id,
    DATABASE_URL: credentials.database_url,
    AGENT_KEY: credentials.agent_key,
  };
}
