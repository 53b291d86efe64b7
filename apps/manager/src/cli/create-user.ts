// `agentplane-manager create-user`: how operators who set ALLOW_SIGNUP=false create accounts. It goes
// through the same signUp as the API, so the user gets a personal workspace they own.
import type { Readable } from 'node:stream';
import { formatZodIssues, ZResourceName, ZSignupBody } from '@agentplane/contracts';
import { createPrisma } from '@agentplane/db';
import { signUp } from '../auth/auth-service.js';
import { type CliIo, parseCliOptions, reportCliFailure, UsageError } from './cli-command.js';

export const CREATE_USER_USAGE = `Usage: agentplane-manager create-user --email <email> --password-stdin [--name <name>] [--workspace <name>]

Creates a user with a personal workspace they own, even when ALLOW_SIGNUP=false.
The password (8 to 256 characters) is read from stdin, never from the command line;
one trailing newline is dropped. DATABASE_URL must point at the platform database.

  --email <email>       the sign-in email (stored trimmed and lower-cased)
  --password-stdin      read the password from stdin (required)
  --name <name>         the user's display name
  --workspace <name>    the personal workspace's name (default: "<name>'s workspace")

Example:
  printf '%s\\n' "$PASSWORD" | agentplane-manager create-user --email ada@example.com --password-stdin --name Ada
`;

const DATABASE_URL_PATTERN = /^postgres(ql)?:\/\//;

type CreateUserInput = { email: string; password: string; name?: string; workspaceName?: string };

function parseOptions(args: string[]) {
  if (args.some((arg) => arg === '--password' || arg.startsWith('--password='))) {
    throw new UsageError(
      '--password is not accepted: the command line is visible to other users and shell history. Use --password-stdin.',
    );
  }
  return parseCliOptions(args, {
    email: { type: 'string' },
    'password-stdin': { type: 'boolean' },
    name: { type: 'string' },
    workspace: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
}

async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** The password as piped in, minus the one newline that `echo` or a here-string adds. */
async function readPassword(stdin: CliIo['stdin']): Promise<string> {
  if (stdin.isTTY) {
    throw new UsageError('--password-stdin reads a pipe; stdin is a terminal. Pipe the password in, e.g. from a file.');
  }
  const password = (await readAll(stdin)).replace(/\r?\n$/, '');
  if (/[\r\n]/.test(password)) throw new UsageError('The password on stdin must be a single line.');
  return password;
}

function validate(input: { email?: string; password: string; name?: string; workspace?: string }): CreateUserInput {
  const problems: string[] = [];
  if (input.email === undefined) problems.push('--email is required');
  const body = ZSignupBody.safeParse({
    email: input.email ?? '',
    password: input.password,
    ...(input.name === undefined ? {} : { name: input.name }),
  });
  if (!body.success) {
    for (const issue of formatZodIssues(body.error)) {
      if (issue.path === 'email' && input.email === undefined) continue;
      problems.push(`${issue.path === 'password' ? 'the password' : `--${issue.path}`}: ${issue.message}`);
    }
  }
  const workspace = input.workspace === undefined ? undefined : ZResourceName.safeParse(input.workspace);
  if (workspace && !workspace.success) problems.push(`--workspace: ${workspace.error.issues[0]?.message}`);
  if (problems.length > 0 || !body.success) throw new UsageError(`invalid input:\n  ${problems.join('\n  ')}`);
  return { ...body.data, ...(workspace?.success ? { workspaceName: workspace.data } : {}) };
}

async function createUser(databaseUrl: string, input: CreateUserInput, io: CliIo): Promise<void> {
  const db = createPrisma(databaseUrl, { maxConnections: 2 });
  try {
    const { userId, workspaceId } = await signUp(db, input);
    io.stdout.write(`Created user ${input.email}\nuser_id=${userId}\nworkspace_id=${workspaceId}\n`);
  } finally {
    await db.$disconnect();
  }
}

/** Runs the command and returns its exit code: 0 created, 1 anything else (with the reason on stderr). */
export async function runCreateUser(args: string[], io: CliIo): Promise<number> {
  try {
    const options = parseOptions(args);
    if (options.help) {
      io.stdout.write(CREATE_USER_USAGE);
      return 0;
    }
    const databaseUrl = io.env.DATABASE_URL;
    if (!databaseUrl) throw new UsageError('DATABASE_URL is required: the postgresql:// URL of the platform database.');
    if (!DATABASE_URL_PATTERN.test(databaseUrl)) throw new UsageError('DATABASE_URL must be a postgresql:// URL.');
    if (!options['password-stdin']) {
      throw new UsageError('--password-stdin is required: pipe the password in on stdin.');
    }
    const password = await readPassword(io.stdin);
    const input = validate({ ...options, password });
    await createUser(databaseUrl, input, io);
    return 0;
  } catch (error) {
    return reportCliFailure('create-user', error, io);
  }
}
