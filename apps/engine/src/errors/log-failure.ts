// Upstream failures (an MCP server, the model provider, an OIDC issuer, an agent module) can carry
// what the upstream said, hosts, paths or worse. The log gets all of it under a random error id; a
// client, RUN_ERROR and the public /health get only a sentence of ours and that id.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@agentplane/server-kit';

/** Logs `error` in full with a new error id, and returns the id. */
export function logFailure(logger: Logger, level: 'warn' | 'error', error: unknown, message: string): string {
  const errorId = randomUUID();
  logger[level]({ err: error, error_id: errorId }, message);
  return errorId;
}

/** A public sentence that points to the logged failure. */
export function withErrorId(sentence: string, errorId: string): string {
  return `${sentence.replace(/\.$/, '')} (error id ${errorId}).`;
}
