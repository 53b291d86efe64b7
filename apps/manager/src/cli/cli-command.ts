// What the operator commands share: strict option parsing, and failures reported as one line on
// stderr with exit code 1, never with a stack trace.
import type { Readable, Writable } from 'node:stream';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { AppError, ConfigError } from '@agentplane/server-kit';

export type CliIo = {
  stdin: Readable & { isTTY?: boolean };
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
};

/** A mistake of the caller's: reported with a pointer to the command's --help. */
export class UsageError extends Error {}

/** The command's options, parsed strictly (no positionals, no unknown options); a mistake is a UsageError. */
export function parseCliOptions<T extends ParseArgsOptionsConfig>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Says on stderr why `command` failed, and returns its exit code. */
export function reportCliFailure(command: string, error: unknown, io: Pick<CliIo, 'stderr'>): number {
  if (error instanceof UsageError) {
    io.stderr.write(`${command}: ${error.message}\nRun "agentplane-manager ${command} --help" for usage.\n`);
  } else if (error instanceof AppError || error instanceof ConfigError) {
    // The service's own refusals (an unknown agent, a duplicate email) and bad settings.
    io.stderr.write(`${command}: ${error.message}\n`);
  } else {
    io.stderr.write(`${command} failed: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  return 1;
}
