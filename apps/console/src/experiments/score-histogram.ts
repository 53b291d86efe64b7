// The aggregates' score distributions as the charts draw them: a row per bin, a column per version.
// The server counts the bins (tenths of 0–1, a 1 in the last); null scores are in none.
import type { VersionAggregate } from './experiment-api';

export type HistogramRow = { bin: string } & Record<string, number | string>;

const binLabel = (index: number, bins: number) => `${(index / bins).toFixed(1)}–${((index + 1) / bins).toFixed(1)}`;

/** The column a version's counts are under. */
export const seriesKey = (version: number) => `v${version}`;

/** The rows of the scorer at `index` (in the experiment's order), over every version's aggregate. */
export function histogramRows(aggregates: readonly VersionAggregate[], index: number): HistogramRow[] {
  const bins = aggregates[0]?.scorers[index]?.distribution.length ?? 0;
  return Array.from({ length: bins }, (_, bin) => {
    const row: HistogramRow = { bin: binLabel(bin, bins) };
    for (const aggregate of aggregates) {
      row[seriesKey(aggregate.agent_version)] = aggregate.scorers[index]?.distribution[bin] ?? 0;
    }
    return row;
  });
}
