// `agentplane-manager operator --grant <email> | --revoke <email>`: makes an existing user a platform
// operator, who may issue engine credentials through the API for any agent or pool, or takes that back.
// Only the CLI, on the manager's host with its DATABASE_URL, can: no API route grants it.
import { ZEmail } from '@agentplane/contracts';
import { createPrisma } from '@agentplane/db';
import { setPlatformOperator } from '../auth/platform-operators.js';
import { loadManagerConfig } from '../config.js';
import type { CliIo } from './cli-command.js';
import { parseCliOptions, reportCliFailure, UsageError } from './cli-command.js';

export const OPERATOR_USAGE = `Usage: agentplane-manager operator (--grant <email> | --revoke <email>)

Makes an existing user a platform operator, or no longer one. A platform operator may issue engine
database credentials through the API (POST /api/v1/agents/{id}/engine-credentials and
POST /api/v1/engine-pools/{name}/credentials) for any agent or pool; no workspace role may. Takes effect
on the user's next request. Reads the manager's environment (DATABASE_URL, SECRETS_KEY, ...).

Example:
  agentplane-manager operator --grant ops@example.com
`;

const OPTIONS = {
  grant: { type: 'string' },
  revoke: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The user the command names, and whether it makes them an operator or takes that back. */
function changeOf(values: { grant?: string | undefined; revoke?: string | undefined }) {
  if ((values.grant === undefined) === (values.revoke === undefined)) {
    throw new UsageError('give one of --grant <email> or --revoke <email>');
  }
  const email = ZEmail.safeParse(values.grant ?? values.revoke);
  if (!email.success) throw new UsageError(`--${values.grant === undefined ? 'revoke' : 'grant'} must be an email`);
  return { email: email.data, operator: values.grant !== undefined };
}

/** Runs the command and returns its exit code: 0 done, 1 anything else (with the reason on stderr). */
export async function runOperator(args: string[], io: CliIo): Promise<number> {
  try {
    const options = parseCliOptions(args, OPTIONS);
    if (options.help) {
      io.stdout.write(OPERATOR_USAGE);
      return 0;
    }
    const { email, operator } = changeOf(options);
    const db = createPrisma(loadManagerConfig(io.env).databaseUrl, { maxConnections: 1 });
    try {
      if (!(await setPlatformOperator(db, email, operator))) {
        io.stderr.write(`operator: no user has the email ${email}; create it first (agentplane-manager create-user)\n`);
        return 1;
      }
    } finally {
      await db.$disconnect();
    }
    io.stdout.write(`${email} is ${operator ? 'now' : 'no longer'} a platform operator\n`);
    return 0;
  } catch (error) {
    return reportCliFailure('operator', error, io);
  }
}
