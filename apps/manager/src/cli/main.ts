#!/usr/bin/env node
// `agentplane-manager <command>`: operator commands that run against the platform database.
import type { CliIo } from './cli-command.js';
import { runCreateUser } from './create-user.js';
import { runEngineCredentials } from './engine-credentials.js';
import { runOpenApi } from './openapi.js';
import { runOperator } from './operator.js';

const USAGE = `Usage: agentplane-manager <command> [options]

Commands:
  create-user          create a user with a personal workspace (works with ALLOW_SIGNUP=false)
  engine-credentials   rotate a dedicated agent engine's or a pool's database password and print its credentials
  operator             make a user a platform operator (who may issue engine credentials), or no longer
  openapi              print the API's OpenAPI document (no database needed)

Run "agentplane-manager <command> --help" for a command's options.
`;

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  'create-user': runCreateUser,
  'engine-credentials': runEngineCredentials,
  openapi: runOpenApi,
  operator: runOperator,
};

async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    (command === undefined ? io.stderr : io.stdout).write(USAGE);
    return command === undefined ? 1 : 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) {
    io.stderr.write(`agentplane-manager: unknown command "${command}"\n\n${USAGE}`);
    return 1;
  }
  return run(args, io);
}

runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
})
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
