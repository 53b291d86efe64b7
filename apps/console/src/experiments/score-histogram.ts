// Scores from 0 to 1 counted into bins, one series per agent version, as the distribution charts draw
// them: a row per bin, a column per version. Null scores (a scorer that could not grade) are no bin's.
export const HISTOGRAM_BINS = 10;

export type HistogramRow = { bin: string } & Record<string, number | string>;

/** The bin of a score: [0, 0.1), [0.1, 0.2) … and [0.9, 1] (1 falls in the last bin, not its own). */
export function binOf(score: number, bins = HISTOGRAM_BINS): number {
  return Math.min(bins - 1, Math.max(0, Math.floor(score * bins)));
}

const binLabel = (index: number, bins: number) => `${(index / bins).toFixed(1)}–${((index + 1) / bins).toFixed(1)}`;

/** The column a version's counts are under. */
export const seriesKey = (version: number) => `v${version}`;

export function histogramRows(
  scoresByVersion: ReadonlyMap<number, readonly (number | null)[]>,
  bins = HISTOGRAM_BINS,
): HistogramRow[] {
  const rows: HistogramRow[] = Array.from({ length: bins }, (_, index) => ({ bin: binLabel(index, bins) }));
  for (const [version, scores] of scoresByVersion) {
    for (const row of rows) row[seriesKey(version)] = 0;
    for (const score of scores) {
      if (score === null) continue;
      const row = rows[binOf(score, bins)] as HistogramRow;
      row[seriesKey(version)] = (row[seriesKey(version)] as number) + 1;
    }
  }
  return rows;
}
