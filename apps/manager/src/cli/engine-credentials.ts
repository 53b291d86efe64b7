// `agentplane-manager engine-credentials --agent <id>`: the API's engine-credentials for operators,
// run with the manager's environment. Prints an env file (AGENT_ID, DATABASE_URL, AGENT_KEY) to stdout,
// to be stored as the engine's secrets; the role's previous password stops working.
import { parseArgs } from 'node:util';
import { ZUuid } from '@agentplane/contracts';
import { createAgentKeyring, createPrisma } from '@agentplane/db';
import { AppError, ConfigError } from '@agentplane/server-kit';
import { loadManagerConfig } from '../config.js';
import { issueEngineCredentials } from '../engine-roles/issue-engine-credentials.js';
import type { CliIo } from './create-user.js';

export const ENGINE_CREDENTIALS_USAGE = `Usage: agentplane-manager engine-credentials --agent <agent id> [--json]

Rotates the password of the agent's engine database role and prints what its engine needs, once:
AGENT_ID, DATABASE_URL (the agent's own role) and AGENT_KEY, as an env file (or JSON with --json).
The previous password stops working at once. Reads the manager's environment (DATABASE_URL,
SECRETS_KEY, ENGINE_DATABASE_URL, ...).

Example:
  agentplane-manager engine-credentials --agent 6f1c...e2 > engine.env
`;

class UsageError extends Error {}

function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: { agent: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export async function runEngineCredentials(args: string[], io: CliIo): Promise<number> {
  try {
    const options = parseOptions(args);
    if (options.help) {
      io.stdout.write(ENGINE_CREDENTIALS_USAGE);
      return 0;
    }
    const agentId = ZUuid.safeParse(options.agent);
    if (!agentId.success) throw new UsageError('--agent must be the UUID of an agent');
    const config = loadManagerConfig(io.env);
    const db = createPrisma(config.databaseUrl, { maxConnections: 2 });
    try {
      const credentials = await issueEngineCredentials(
        {
          db,
          agentKeys: createAgentKeyring(config.secretsKey.current, config.secretsKey.previous),
          engineRoles: config.engines.roles,
          engineDatabaseUrl: config.engines.databaseUrl,
          engineConnectionsTotal: config.engines.connectionsTotal,
        },
        { agentId: agentId.data },
      );
      io.stdout.write(
        options.json
          ? `${JSON.stringify(credentials)}\n`
          : `AGENT_ID=${credentials.agent_id}\nDATABASE_URL=${credentials.database_url}\nAGENT_KEY=${credentials.agent_key}\n`,
      );
    } finally {
      await db.$disconnect();
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(
        `engine-credentials: ${error.message}\nRun "agentplane-manager engine-credentials --help" for usage.\n`,
      );
    } else if (error instanceof AppError || error instanceof ConfigError) {
      io.stderr.write(`engine-credentials: ${error.message}\n`);
    } else {
      io.stderr.write(`engine-credentials failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    return 1;
  }
}
