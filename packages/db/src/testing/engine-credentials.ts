// An agent's engine credentials for tests, as the manager issues them: its role provisioned on the
// suite's database with a fresh password, and its agent key under a platform key of the test's.
import { randomBytes } from 'node:crypto';
import { engineRoleName, poolRoleName } from '../engine-roles/engine-role-names.js';
import { provisionEngineRole, rotateEngineRolePassword } from '../engine-roles/engine-roles.js';
import { placeAgentRole, provisionPoolRole, rotatePoolRolePassword } from '../engine-roles/pool-roles.js';
import { deriveAgentKey, derivePoolKey } from '../secrets/agent-keys.js';
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

export type PoolCredentialsEnv = { ENGINE_POOL: string; DATABASE_URL: string; ENGINE_POOL_KEY: string };

/** A pool's credentials for tests, with `agentIds` (provisioned if need be) placed on it. */
export async function issueTestPoolCredentials(
  database: Pick<TestDatabase, 'prisma' | 'url'>,
  pool: string,
  agentIds: string[],
  platformKey = TEST_PLATFORM_KEY,
): Promise<PoolCredentialsEnv> {
  await provisionPoolRole(database.prisma, pool, TEST_ENGINE_ROLE_SETTINGS);
  for (const agentId of agentIds) {
    await provisionEngineRole(database.prisma, agentId, TEST_ENGINE_ROLE_SETTINGS);
    await placeAgentRole(database.prisma, agentId, pool);
  }
  const password = await rotatePoolRolePassword(database.prisma, pool);
  const url = new URL(database.url);
  url.username = poolRoleName(pool);
  url.password = password;
  return { ENGINE_POOL: pool, DATABASE_URL: url.toString(), ENGINE_POOL_KEY: derivePoolKey(platformKey, pool) };
}
