// The online scoring queue's statements, in SQL because Prisma can neither SKIP LOCKED nor fence a
// write on the lease it claimed. Runs are queued by the agent_runs trigger of the 20261209030000
// migration. Every manager replica claims from the queue; a claim is a lease, so a manager that dies
// mid-way leaves a run that another claims once the lease has run out, and a result is stored only
// under the lease it was graded under: with the queue entry's delete, in one statement, so a run's
// scores are written once, by the one manager that still held it.
import type { TScorerResult } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';

export type QueuedRun = { agentId: string; runId: string; attempt: number };

/** Claims after which a run is given up on (a run whose grading keeps killing its manager, say). */
export const MAX_SCORING_ATTEMPTS = 3;

/** Leases up to `limit` runs whose lease is free or ran out to `owner`, oldest first, counting the attempt. */
export async function claimQueuedRuns(
  db: Db,
  { owner, leaseMs, limit }: { owner: string; leaseMs: number; limit: number },
): Promise<QueuedRun[]> {
  return db.$queryRaw<QueuedRun[]>`
    WITH due AS (
      SELECT agent_id, run_id FROM online_scoring_queue
      WHERE (lease_expires_at IS NULL OR lease_expires_at < now()) AND attempts < ${MAX_SCORING_ATTEMPTS}
      ORDER BY queued_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED)
    UPDATE online_scoring_queue q
    SET lease_owner = ${owner}, lease_expires_at = now() + ${leaseMs}::float8 * interval '1 millisecond',
      attempts = q.attempts + 1
    FROM due WHERE q.agent_id = due.agent_id AND q.run_id = due.run_id
    RETURNING q.agent_id AS "agentId", q.run_id AS "runId", q.attempts AS attempt`;
}

/**
 * Takes the run off the queue and stores its scores (none: the run is dropped unscored), only while
 * `owner` still holds this attempt's lease; false when the lease was lost, and nothing is written.
 */
export async function finishQueuedRun(
  db: Db,
  run: QueuedRun & { owner: string },
  results: readonly TScorerResult[],
): Promise<boolean> {
  const rows = await db.$queryRaw<{ finished: number }[]>`
    WITH done AS (
      DELETE FROM online_scoring_queue
      WHERE agent_id = ${run.agentId}::uuid AND run_id = ${run.runId} AND lease_owner = ${run.owner}
        AND attempts = ${run.attempt}
      RETURNING agent_id, run_id),
    stored AS (
      INSERT INTO run_scores (agent_id, run_id, scorer_name, kind, score, reason, judge_tokens)
      SELECT done.agent_id, done.run_id, result.name, result.kind, result.score, result.reason, result.judge_tokens
      FROM done CROSS JOIN jsonb_to_recordset(${JSON.stringify(results)}::jsonb)
        AS result(name text, kind text, score float8, reason text, judge_tokens jsonb)
      ON CONFLICT DO NOTHING)
    SELECT count(*)::int AS finished FROM done`;
  return (rows[0]?.finished ?? 0) > 0;
}

/** Runs claimed MAX_SCORING_ATTEMPTS times whose last lease ran out: given up on. */
export async function dropExhaustedRuns(db: Db): Promise<number> {
  return db.$executeRaw`
    DELETE FROM online_scoring_queue
    WHERE attempts >= ${MAX_SCORING_ATTEMPTS} AND lease_expires_at < now()`;
}

/** Applies the operator's queue cap to every agent's settings (the trigger reads it there). */
export async function applyMaxQueued(db: Db, maxQueued: number): Promise<number> {
  return db.$executeRaw`
    UPDATE online_scoring_settings SET max_queued = ${maxQueued}::int WHERE max_queued <> ${maxQueued}::int`;
}

/** Keeps each agent's newest `maxPerAgent` score rows. */
export async function pruneRunScores(db: Db, maxPerAgent: number): Promise<number> {
  return db.$executeRaw`
    DELETE FROM run_scores s USING (
      SELECT agent_id, run_id, scorer_name FROM (
        SELECT agent_id, run_id, scorer_name,
          row_number() OVER (PARTITION BY agent_id ORDER BY created_at DESC, run_id DESC, scorer_name) AS newest
        FROM run_scores) ranked
      WHERE newest > ${maxPerAgent}::int) old
    WHERE s.agent_id = old.agent_id AND s.run_id = old.run_id AND s.scorer_name = old.scorer_name`;
}
