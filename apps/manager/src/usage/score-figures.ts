// Each online scorer's results over an agent's runs in a usage range: mean score, scored runs and runs
// graded without a score, over the whole range, per bucket and per version, in one pass (GROUPING
// SETS). Runs are taken by created_at, as the usage figures take them, so a bucket's scores are those of
// the runs it counts.
import type { TScorerUsage } from '@agentplane/contracts';
import type { Db } from '@agentplane/db';
import type { UsageRange } from './usage-range.js';

export type ScoreFigures = {
  totals: TScorerUsage[];
  /** Keyed by the bucket's start (epoch ms). */
  buckets: Map<number, TScorerUsage[]>;
  /** Keyed by the version the runs ran with (null before versions). */
  versions: Map<number | null, TScorerUsage[]>;
};

type ScoreRow = {
  by_bucket: boolean;
  by_version: boolean;
  bucket_start: Date | null;
  agent_version: bigint | null;
  name: string;
  mean: number | null;
  n: number;
  null_count: number;
};

function push<K>(map: Map<K, TScorerUsage[]>, key: K, figures: TScorerUsage): void {
  const list = map.get(key) ?? [];
  list.push(figures);
  map.set(key, list);
}

export async function readScoreFigures(db: Db, agentId: string, range: UsageRange): Promise<ScoreFigures> {
  // Served by agent_runs_agent_id_created_at_idx, then run_scores' primary key per run.
  const rows = await db.$queryRaw<ScoreRow[]>`
    WITH scored AS (
      SELECT date_trunc(${range.bucket}, r.created_at, 'UTC') AS bucket_start, r.agent_version, s.scorer_name, s.score
      FROM agent_runs r JOIN run_scores s ON s.agent_id = r.agent_id AND s.run_id = r.id
      WHERE r.agent_id = ${agentId}::uuid AND r.created_at >= ${range.from} AND r.created_at < ${range.to})
    SELECT GROUPING(bucket_start) = 0 AS by_bucket, GROUPING(agent_version) = 0 AS by_version,
      bucket_start, agent_version, scorer_name AS name, avg(score)::float8 AS mean, count(score)::int AS n,
      (count(*) FILTER (WHERE score IS NULL))::int AS null_count
    FROM scored
    GROUP BY GROUPING SETS ((bucket_start, scorer_name), (agent_version, scorer_name), (scorer_name))
    ORDER BY scorer_name`;
  const figures: ScoreFigures = { totals: [], buckets: new Map(), versions: new Map() };
  for (const { by_bucket, by_version, bucket_start, agent_version, ...scores } of rows) {
    if (by_bucket) push(figures.buckets, (bucket_start as Date).getTime(), scores);
    else if (by_version) push(figures.versions, agent_version === null ? null : Number(agent_version), scores);
    else figures.totals.push(scores);
  }
  return figures;
}
