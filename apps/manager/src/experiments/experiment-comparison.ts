// Two versions of one experiment, item by item: per scorer the mean of each side's repeats and the
// delta, a verdict, and whether the replies changed; counts over every item, the items filtered (by
// verdict, by a changed reply) and then paged.
import type {
  TComparisonItem,
  TComparisonQuery,
  TComparisonVerdict,
  TExperimentComparison,
  TExperimentParams,
  TScorer,
  TScorerResult,
} from '@agentplane/contracts';
import { AppError } from '@agentplane/server-kit';
import { mean } from './experiment-aggregates.js';
import { type ExperimentContext, findExperiment, storedScorers } from './experiment-service.js';

export type ComparedResult = {
  itemId: string;
  position: number;
  agentVersion: bigint | number;
  repeat: number;
  state: string;
  reply: string | null;
  scores: unknown;
};

// Scores are means of a few values in 0–1: a difference below this is rounding, not a change.
const EPSILON = 1e-9;

const isFinal = (result: ComparedResult) => result.state === 'scored' || result.state === 'failed';

function sideMean(results: ComparedResult[], index: number): number | null {
  return mean(
    results.flatMap((result) => {
      if (result.state !== 'scored' || !Array.isArray(result.scores)) return [];
      const score = (result.scores[index] as TScorerResult | undefined)?.score;
      return typeof score === 'number' ? [score] : [];
    }),
  );
}

function verdictOf(deltas: number[], baseFailed: number, candidateFailed: number): TComparisonVerdict {
  const change = mean(deltas);
  if (change !== null && Math.abs(change) > EPSILON) return change > 0 ? 'improved' : 'regressed';
  if (change === null && candidateFailed !== baseFailed) return candidateFailed < baseFailed ? 'improved' : 'regressed';
  return 'unchanged';
}

function repliesChanged(base: ComparedResult[], candidate: ComparedResult[]): boolean {
  const candidateByRepeat = new Map(candidate.filter(isFinal).map((result) => [result.repeat, result.reply]));
  return base.filter(isFinal).some((result) => {
    const other = candidateByRepeat.get(result.repeat);
    return other !== undefined && other !== result.reply;
  });
}

function side(results: ComparedResult[]) {
  const first = [...results].sort((a, b) => a.repeat - b.repeat)[0];
  return {
    reply: first?.reply ?? null,
    runs: results.filter(isFinal).length,
    failed: results.filter((result) => result.state === 'failed').length,
  };
}

/** Every item's comparison, in the dataset's order. */
export function compareItems(
  scorers: readonly TScorer[],
  base: number,
  candidate: number,
  results: ComparedResult[],
): TComparisonItem[] {
  const items = new Map<string, { position: number; base: ComparedResult[]; candidate: ComparedResult[] }>();
  for (const result of results) {
    const version = Number(result.agentVersion);
    if (version !== base && version !== candidate) continue;
    const item = items.get(result.itemId) ?? { position: result.position, base: [], candidate: [] };
    (version === base ? item.base : item.candidate).push(result);
    items.set(result.itemId, item);
  }
  return [...items.entries()]
    .sort(([, a], [, b]) => a.position - b.position)
    .map(([itemId, item]) => {
      const scores = scorers.map((scorer, index) => {
        const baseMean = sideMean(item.base, index);
        const candidateMean = sideMean(item.candidate, index);
        const delta = baseMean === null || candidateMean === null ? null : candidateMean - baseMean;
        return { name: scorer.name, base: baseMean, candidate: candidateMean, delta };
      });
      const baseSide = side(item.base);
      const candidateSide = side(item.candidate);
      return {
        item_id: itemId,
        position: item.position,
        verdict: verdictOf(
          scores.flatMap((score) => (score.delta === null ? [] : [score.delta])),
          baseSide.failed,
          candidateSide.failed,
        ),
        reply_changed: repliesChanged(item.base, item.candidate),
        base: baseSide,
        candidate: candidateSide,
        scores,
      };
    });
}

export function countVerdicts(items: TComparisonItem[]): TExperimentComparison['counts'] {
  const counts = { items: items.length, improved: 0, regressed: 0, unchanged: 0, reply_changed: 0 };
  for (const item of items) {
    counts[item.verdict]++;
    if (item.reply_changed) counts.reply_changed++;
  }
  return counts;
}

/** The items a comparison's filters keep; a filter not given keeps every item. */
export function filterItems(
  items: TComparisonItem[],
  filters: Pick<TComparisonQuery, 'verdict' | 'reply_changed'>,
): TComparisonItem[] {
  return items.filter(
    (item) =>
      (filters.verdict === undefined || item.verdict === filters.verdict) &&
      (filters.reply_changed === undefined || item.reply_changed === filters.reply_changed),
  );
}

export async function compareVersions(
  ctx: ExperimentContext,
  params: TExperimentParams,
  query: TComparisonQuery,
): Promise<TExperimentComparison> {
  const row = await findExperiment(ctx.db, ctx.workspaceId, params);
  const versions = row.agentVersions.map(Number);
  const errors = (['base', 'candidate'] as const)
    .filter((key) => !versions.includes(query[key]))
    .map((key) => ({ path: key, message: `Not a version of the experiment (${versions.join(', ')})` }));
  if (errors.length === 0 && query.base === query.candidate) {
    errors.push({ path: 'candidate', message: 'Must differ from base' });
  }
  if (errors.length > 0)
    throw new AppError('validation_failed', 'Two versions of the experiment are compared.', { errors });
  const results = await ctx.db.experimentResult.findMany({
    where: { experimentId: row.id, agentVersion: { in: [BigInt(query.base), BigInt(query.candidate)] } },
    select: { itemId: true, position: true, agentVersion: true, repeat: true, state: true, reply: true, scores: true },
  });
  const items = compareItems(storedScorers(row), query.base, query.candidate, results);
  const matched = filterItems(items, query);
  return {
    base: query.base,
    candidate: query.candidate,
    counts: countVerdicts(items),
    matched: matched.length,
    items: matched.slice(query.offset, query.offset + query.limit),
  };
}
