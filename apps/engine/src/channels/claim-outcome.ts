// What became of one claimed channel message, and how that is written back. Every write names the
// claim's lease (inbound-queue.ts): when it was lost, another worker holds the message and records its
// outcome, so this worker writes nothing more and stops.
import type { Logger } from '@agentplane/server-kit';
import type { Queryable } from '../threads/thread-store.js';
import {
  type ClaimedMessage,
  markDone,
  markFailed,
  markSkipped,
  releaseClaim,
  scheduleRetry,
} from './inbound-queue.js';
import { providerName } from './provider-names.js';

/** What the provider's API said about a failed call, for the log. */
export type ApiDetails = { api_status: number | undefined; api_code: string | number | undefined };

export type ClaimOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delayMs: number; reason: string; api?: ApiDetails }
  | { kind: 'failed'; reason: string; api?: ApiDetails }
  | { kind: 'skipped'; reason: string }
  /** A progress write found the lease gone: the new holder answers the message, nothing is recorded. */
  | { kind: 'lease_lost'; during: string }
  /** The engine is stopping: the message goes back to the queue and the attempt does not count. */
  | { kind: 'released' };

async function write(db: Queryable, claim: ClaimedMessage, outcome: ClaimOutcome): Promise<boolean> {
  switch (outcome.kind) {
    case 'done':
      return markDone(db, claim);
    case 'retry':
      return scheduleRetry(db, claim, outcome.delayMs, outcome.reason);
    case 'failed':
      return markFailed(db, claim, outcome.reason);
    case 'skipped':
      return markSkipped(db, claim, outcome.reason);
    case 'released':
      return releaseClaim(db, claim);
    case 'lease_lost':
      return false;
  }
}

function logOutcome(log: Logger, what: string, outcome: ClaimOutcome): void {
  switch (outcome.kind) {
    case 'done':
      log.info(`${what} answered`);
      return;
    case 'retry':
      log.warn(
        { err_message: outcome.reason, ...outcome.api, retry_in_ms: Math.round(outcome.delayMs) },
        `${what} will be retried`,
      );
      return;
    case 'failed':
      log.error({ err_message: outcome.reason, ...outcome.api }, `${what} failed`);
      return;
    case 'skipped':
      log.warn({ reason: outcome.reason }, `${what} skipped`);
      return;
    case 'released':
    case 'lease_lost':
      return;
  }
}

/**
 * Records `outcome` under the claim's lease; false when the lease was lost (before or while recording),
 * in which case nothing was written and the worker must leave the message to its new holder.
 */
export async function recordOutcome(
  db: Queryable,
  claim: ClaimedMessage,
  outcome: ClaimOutcome,
  log: Logger,
): Promise<boolean> {
  const what = `${providerName(claim.provider)} ${claim.kind === 'approval' ? 'approval' : 'message'}`;
  const held = await write(db, claim, outcome);
  if (held) {
    logOutcome(log, what, outcome);
    return true;
  }
  if (outcome.kind !== 'released') {
    const during = outcome.kind === 'lease_lost' ? outcome.during : `recording ${outcome.kind}`;
    log.warn({ during }, `${what} lease lost: another worker holds the message now, this one stopped`);
  }
  return false;
}
