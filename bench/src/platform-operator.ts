// Engine credentials are the platform operator's to issue, never a tenant's: the bench signs up one
// user and makes it a platform operator in the database (as `agentplane-manager operator --grant`
// does), and asks for every engine's credentials as that user.
import { randomUUID } from 'node:crypto';
import type { TEngineCredentials } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import pg from 'pg';

let operator: ManagerClient | undefined;

/** A new user of the manager at `managerUrl`, made a platform operator in its database. */
export async function signUpOperator(managerUrl: string, databaseUrl: string): Promise<ManagerClient> {
  const email = `operator-${randomUUID()}@example.test`;
  const client = await ManagerClient.signUp(managerUrl, { email });
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('UPDATE users SET platform_operator = true WHERE email = $1', [email]);
  } finally {
    await db.end();
  }
  return client;
}

/** Signs up the operator every engine's credentials are issued to. */
export async function signUpPlatformOperator(managerUrl: string, databaseUrl: string): Promise<void> {
  operator = await signUpOperator(managerUrl, databaseUrl);
}

/** The agent's engine credentials, issued to the bench's platform operator. */
export function issueEngineCredentials(agentId: string): Promise<TEngineCredentials> {
  if (operator === undefined) throw new Error('signUpPlatformOperator first');
  return operator.issueEngineCredentials(agentId);
}
