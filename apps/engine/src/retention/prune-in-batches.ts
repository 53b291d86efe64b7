// What every retention job of the engine shares: a DELETE of at most `batchSize` rows, repeated while
// a full batch was deleted (at most `maxBatches` times), at start and then on an interval. Bounded
// statements hold few locks and write little WAL at once; a backlog is worked off over several passes.
import type { Logger } from '@agentplane/server-kit';
import type { Queryable } from '../threads/thread-store.js';

export type BatchOptions = { batchSize: number; maxBatches: number };

/**
 * Runs `statement` (whose last parameter is the batch size) batch after batch while a full batch was
 * deleted, at most `maxBatches` times.
 */
export async function deleteInBatches(
  db: Queryable,
  statement: string,
  values: unknown[],
  { batchSize, maxBatches }: BatchOptions,
): Promise<{ deleted: number; batches: number }> {
  let deleted = 0;
  let batches = 0;
  while (batches < maxBatches) {
    batches++;
    const { rowCount } = await db.query(statement, [...values, batchSize]);
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batchSize) break;
  }
  return { deleted, batches };
}

export type Pruner = { stop: () => Promise<void> };

/** Prunes at start, then every `intervalMs`, until stopped; a failed pass is logged and the next one tries again. */
export function startPruner(options: {
  prune: () => Promise<{ deleted: number; batches: number }>;
  /** What is pruned, for the log: "finished inbound messages". */
  what: string;
  component: string;
  intervalMs: number;
  logger: Logger;
}): Pruner {
  const log = options.logger.child({ component: options.component });
  let pass: Promise<void> | undefined;
  const prune = () => {
    if (pass !== undefined) return;
    pass = options
      .prune()
      .then(
        ({ deleted, batches }) => {
          if (deleted > 0) log.info({ deleted, batches }, `${options.what} pruned`);
        },
        (error: unknown) => log.warn({ err: error }, `could not prune ${options.what}`),
      )
      .finally(() => {
        pass = undefined;
      });
  };
  prune();
  const timer = setInterval(prune, options.intervalMs);
  return {
    stop: async () => {
      clearInterval(timer);
      await pass;
    },
  };
}

/** An agent's retention job: one bounded DELETE (parameters: agent id, retention in ms, batch size). */
export type RetentionJob = {
  statement: string;
  batchSize: number;
  maxBatches: number;
  /** What is pruned, for the log: "finished inbound messages". */
  what: string;
  component: string;
  intervalMs: number;
};

export type PruneOptions = { retentionMs: number; batchSize?: number; maxBatches?: number };

/** The job's one pass (batch after batch) and its pruner (at start, then every `intervalMs`). */
export function defineRetention(job: RetentionJob) {
  const prune = (
    db: Queryable,
    agentId: string,
    { retentionMs, batchSize = job.batchSize, maxBatches = job.maxBatches }: PruneOptions,
  ) => deleteInBatches(db, job.statement, [agentId, retentionMs], { batchSize, maxBatches });
  const start = (options: { db: Queryable; agentId: string; retentionMs: number; logger: Logger }): Pruner =>
    startPruner({
      prune: () => prune(options.db, options.agentId, { retentionMs: options.retentionMs }),
      what: job.what,
      component: job.component,
      intervalMs: job.intervalMs,
      logger: options.logger,
    });
  return { prune, start };
}
