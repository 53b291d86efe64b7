// Aggregates of an experiment's results per version and scorer: mean, count, nulls apart, and a 95%
// Student's t interval. With repeats, the repeats of one item are not independent observations, so the
// interval is over items (each the mean of its repeats' scores); with one repeat, over runs. Also the
// scores' distribution in tenths, so that a chart needs no result read. Pure.
import {
  SCORE_DISTRIBUTION_BINS,
  type TConfidenceInterval,
  type TScorer,
  type TScorerResult,
  type TVersionAggregate,
} from '@agentplane/contracts';

export type AggregatedResult = {
  itemId: string;
  agentVersion: bigint | number;
  state: string;
  scores: unknown;
  latencyMs: number | null;
  tokens: unknown;
};

// t(0.975, df) for df = 1..30; beyond, the Cornish-Fisher expansion is within 1e-6 of it.
const T_975 = [
  12.706204736, 4.30265273, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252, 2.306004135, 2.262157163,
  2.228138852, 2.20098516, 2.17881283, 2.160368656, 2.144786688, 2.131449546, 2.119905299, 2.109815578, 2.10092204,
  2.093024054, 2.085963447, 2.079613845, 2.073873068, 2.06865761, 2.063898562, 2.059538553, 2.055529439, 2.051830516,
  2.048407142, 2.045229642, 2.042272456,
];
const Z_975 = 1.959963984540054;

/** The 0.975 quantile of Student's t with `df` degrees of freedom. */
export function tQuantile975(df: number): number {
  const tabled = T_975[df - 1];
  if (tabled !== undefined) return tabled;
  const z = Z_975;
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  const g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / 92160;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3 + g4 / df ** 4;
}

export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The `p` quantile (0–1) by linear interpolation between order statistics; null with no values. */
export function quantile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * p;
  const below = Math.floor(at);
  const low = sorted[below] as number;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return low + (high - low) * (at - below);
}

/** The 95% interval of the mean of `units`, clamped to the scores' 0–1; null below two units. */
export function confidenceInterval(units: readonly number[], unit: 'run' | 'item'): TConfidenceInterval | null {
  const n = units.length;
  if (n < 2) return null;
  const centre = mean(units) as number;
  const variance = units.reduce((sum, value) => sum + (value - centre) ** 2, 0) / (n - 1);
  const half = tQuantile975(n - 1) * Math.sqrt(variance / n);
  return { level: 0.95, low: Math.max(0, centre - half), high: Math.min(1, centre + half), unit, n };
}

/** Counts of the scores per tenth; a 1 is the last bin's, not a bin of its own. */
export function distributionOf(scores: readonly number[]): number[] {
  const bins = new Array<number>(SCORE_DISTRIBUTION_BINS).fill(0);
  for (const score of scores) {
    const bin = Math.min(SCORE_DISTRIBUTION_BINS - 1, Math.max(0, Math.floor(score * SCORE_DISTRIBUTION_BINS)));
    bins[bin] = (bins[bin] as number) + 1;
  }
  return bins;
}

function scoreAt(result: AggregatedResult, index: number): number | null | undefined {
  if (result.state !== 'scored' || !Array.isArray(result.scores)) return undefined;
  return (result.scores[index] as TScorerResult | undefined)?.score;
}

function totalTokens(tokens: unknown): number | undefined {
  const total = (tokens as { total?: unknown } | null)?.total;
  return typeof total === 'number' ? total : undefined;
}

function aggregateScorer(results: AggregatedResult[], scorer: TScorer, index: number, repeats: number) {
  const values: number[] = [];
  const byItem = new Map<string, number[]>();
  let nullCount = 0;
  for (const result of results) {
    const score = scoreAt(result, index);
    if (score === undefined) continue;
    if (score === null) {
      nullCount++;
      continue;
    }
    values.push(score);
    byItem.set(result.itemId, [...(byItem.get(result.itemId) ?? []), score]);
  }
  const unit = repeats > 1 ? 'item' : 'run';
  const units = unit === 'item' ? [...byItem.values()].map((scores) => mean(scores) as number) : values;
  return {
    name: scorer.name,
    kind: scorer.kind,
    mean: mean(values),
    n: values.length,
    null_count: nullCount,
    ci: confidenceInterval(units, unit),
    distribution: distributionOf(values),
  };
}

export function aggregateVersions(options: {
  versions: number[];
  scorers: readonly TScorer[];
  repeats: number;
  results: AggregatedResult[];
}): TVersionAggregate[] {
  return options.versions.map((version) => {
    const results = options.results.filter((result) => Number(result.agentVersion) === version);
    const ended = results.filter((result) => result.state === 'scored' || result.state === 'failed');
    const latencies = ended.flatMap((result) => (result.latencyMs === null ? [] : [result.latencyMs]));
    const tokens = ended.flatMap((result) => totalTokens(result.tokens) ?? []);
    return {
      agent_version: version,
      runs: results.length,
      scored: results.filter((result) => result.state === 'scored').length,
      failed: results.filter((result) => result.state === 'failed').length,
      latency_ms: { mean: mean(latencies), p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95) },
      tokens: { mean: mean(tokens) },
      scorers: options.scorers.map((scorer, index) => aggregateScorer(results, scorer, index, options.repeats)),
    };
  });
}
