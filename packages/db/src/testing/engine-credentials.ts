// An agent's engine credentials for tests, as the manager issues them: its role provisioned on the
// suite's database with a fresh password, and its agent key under a platform key of the test's.
import { randomBytes } from 'node:crypto';
import { engineRoleName } from '../engine-roles/engine-role-names.js';
import { provisionEngineRole, rotateEngineRolePassword } from '../engine-roles/engine-roles.js';
import { deriveAgentKey } from '../secrets/agent-keys.js';
import type { TestDatabase } from './test-database.js';

/** The platform key of a test run; the manager would hold it as SECRETS_KEY. */
export const TEST_PLATFORM_KEY = randomBytes(32).toString('base64');

/** Roomy, so that tests never meet them by accident; tests of the limits set their own. */
export const TEST_ENGINE_ROLE_SETTINGS = {
  connectionLimit: 50,
  statementTimeoutMs: 60_000,
  idleInTransactionTimeoutMs: 60_000,
};

export type EngineCredentialsEnv = { AGENT_ID: string; DATABASE_URL: string; AGENT_KEY: string };

export async function issueTestEngineCredentials(
  database: Pick<TestDatabase, 'prisma' | 'url'>,
  agentId: string,
  platformKey = TEST_PLATFORM_KEY,
): Promise<EngineCredentialsEnv> {
  await provisionEngineRole(database.prisma, agentId, TEST_ENGINE_ROLE_SETTINGS);
  const password = await rotateEngineRolePassword(database.prisma, agentId);
  const url = new URL(database.url);
  url.username = engineRoleName(agentId);
  url.password = password;
  return { AGENT_ID: agentId, DATABASE_URL: url.toString(), AGENT_KEY: deriveAgentKey(platformKey, agentId) };
}
