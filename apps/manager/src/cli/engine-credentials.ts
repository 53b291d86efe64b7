// `agentplane-manager engine-credentials --agent <id> | --pool <name>`: engine credentials for
// operators, run with the manager's environment. Prints an env file to stdout, to be stored as the
// engine's secrets: AGENT_ID, DATABASE_URL, AGENT_KEY for a dedicated agent's engine; ENGINE_POOL,
// DATABASE_URL, ENGINE_POOL_KEY for a pool's engines. The role's previous password stops working.
import { ZUuid } from '@agentplane/contracts';
import { createAgentKeyring, createPrisma, POOL_NAME } from '@agentplane/db';
import { loadManagerConfig } from '../config.js';
import {
  type EngineCredentialsDependencies,
  issueEngineCredentials,
  issuePoolCredentials,
} from '../engine-roles/issue-engine-credentials.js';
import type { CliIo } from './cli-command.js';
import { parseCliOptions, reportCliFailure, UsageError } from './cli-command.js';

export const ENGINE_CREDENTIALS_USAGE = `Usage: agentplane-manager engine-credentials (--agent <agent id> | --pool <pool name>) [--json]

Rotates the password of an engine database role and prints what its engines need, once, as an env
file (or JSON with --json). The previous password stops working at once. Reads the manager's
environment (DATABASE_URL, SECRETS_KEY, ENGINE_DATABASE_URL, ENGINE_POOLS, ...).

  --agent <id>     a dedicated agent's engine: AGENT_ID, DATABASE_URL (the agent's own role), AGENT_KEY
  --pool <name>    the engines of one of ENGINE_POOLS: ENGINE_POOL, DATABASE_URL (the pool's role,
                   made if need be), ENGINE_POOL_KEY

Examples:
  agentplane-manager engine-credentials --agent 6f1c...e2 > engine.env
  agentplane-manager engine-credentials --pool main > pool-main.env
`;

const OPTIONS = {
  agent: { type: 'string' },
  pool: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Target = { agentId: string } | { pool: string };

function targetOf(options: { agent?: string | undefined; pool?: string | undefined }): Target {
  if (options.agent !== undefined && options.pool !== undefined) {
    throw new UsageError('give --agent or --pool, not both');
  }
  if (options.pool !== undefined) {
    if (!POOL_NAME.test(options.pool)) throw new UsageError('--pool must be the name of one of ENGINE_POOLS');
    return { pool: options.pool };
  }
  const agentId = ZUuid.safeParse(options.agent);
  if (!agentId.success) throw new UsageError('--agent must be the UUID of an agent (or give --pool)');
  return { agentId: agentId.data };
}

/** The env file (or JSON) the target's engines are started with. */
async function credentialsText(deps: EngineCredentialsDependencies, target: Target, json: boolean): Promise<string> {
  if ('pool' in target) {
    const credentials = await issuePoolCredentials(deps, target);
    if (json) return `${JSON.stringify(credentials)}\n`;
    return `ENGINE_POOL=${credentials.pool}\nDATABASE_URL=${credentials.database_url}\nENGINE_POOL_KEY=${credentials.pool_key}\n`;
  }
  const credentials = await issueEngineCredentials(deps, target);
  if (json) return `${JSON.stringify(credentials)}\n`;
  return `AGENT_ID=${credentials.agent_id}\nDATABASE_URL=${credentials.database_url}\nAGENT_KEY=${credentials.agent_key}\n`;
}

export async function runEngineCredentials(args: string[], io: CliIo): Promise<number> {
  try {
    const options = parseCliOptions(args, OPTIONS);
    if (options.help) {
      io.stdout.write(ENGINE_CREDENTIALS_USAGE);
      return 0;
    }
    const target = targetOf(options);
    const config = loadManagerConfig(io.env);
    const db = createPrisma(config.databaseUrl, { maxConnections: 2 });
    try {
      const deps = {
        db,
        agentKeys: createAgentKeyring(config.secretsKey.current, config.secretsKey.previous),
        engineRoles: config.engines.roles,
        enginePools: config.engines.pools,
        engineDatabaseUrl: config.engines.databaseUrl,
        engineConnectionsTotal: config.engines.connectionsTotal,
      };
      io.stdout.write(await credentialsText(deps, target, options.json === true));
    } finally {
      await db.$disconnect();
    }
    return 0;
  } catch (error) {
    return reportCliFailure('engine-credentials', error, io);
  }
}
