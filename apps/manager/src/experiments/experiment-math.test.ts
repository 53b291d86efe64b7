// The pure parts of an experiment's reading: aggregates with Student's t intervals, the pairwise
// comparison and CSV cells.
import type { TExperimentResult, TScorer } from '@agentplane/contracts';
import { describe, expect, it } from '@jest/globals';
import {
  aggregateVersions,
  confidenceInterval,
  distributionOf,
  quantile,
  tQuantile975,
} from './experiment-aggregates.js';
import { type ComparedResult, compareItems, countVerdicts, filterItems } from './experiment-comparison.js';
import { csvCell, csvHeader, csvRow } from './experiment-export.js';

const SCORERS: TScorer[] = [
  { name: 'exact', kind: 'exact_match', case_sensitive: true, normalize_whitespace: false },
  { name: 'has', kind: 'contains', texts: ['a'], mode: 'any', case_sensitive: false },
];

const scored = (exact: number | null, has: number | null) => [
  { name: 'exact', kind: 'exact_match', score: exact, reason: '' },
  { name: 'has', kind: 'contains', score: has, reason: '' },
];

describe('aggregates', () => {
  it('uses the 0.975 quantile of Student’s t, tabled and beyond', () => {
    expect(tQuantile975(1)).toBeCloseTo(12.7062, 4);
    expect(tQuantile975(9)).toBeCloseTo(2.2622, 4);
    expect(tQuantile975(40)).toBeCloseTo(2.021075, 5);
    expect(tQuantile975(120)).toBeCloseTo(1.97993, 5);
  });

  it('gives an interval of the mean over units, clamped to 0–1, and none below two', () => {
    // mean 0.5, variance 0.02 / 3, four units: t(3) × √(variance / 4) either side
    const ci = confidenceInterval([0.4, 0.5, 0.6, 0.5], 'run');
    expect(ci?.n).toBe(4);
    expect(ci?.low).toBeCloseTo(0.5 - 3.182446305 * Math.sqrt(0.02 / 3 / 4), 9);
    expect(ci?.high).toBeCloseTo(0.5 + 3.182446305 * Math.sqrt(0.02 / 3 / 4), 9);
    expect(confidenceInterval([0, 1], 'run')).toMatchObject({ low: 0, high: 1 });
    expect(confidenceInterval([1], 'run')).toBeNull();
    expect(quantile([10, 20, 30, 40], 0.5)).toBe(25);
    expect(quantile([10, 20, 30, 40], 0.95)).toBeCloseTo(38.5, 9);
  });

  it('counts null scores apart, leaves failed runs ungraded, and with repeats takes items as the unit', () => {
    const results = [
      {
        itemId: 'i1',
        agentVersion: 1n,
        state: 'scored',
        scores: scored(1, null),
        latencyMs: 100,
        tokens: { total: 10 },
      },
      { itemId: 'i1', agentVersion: 1n, state: 'scored', scores: scored(0, 1), latencyMs: 300, tokens: { total: 30 } },
      { itemId: 'i2', agentVersion: 1n, state: 'scored', scores: scored(1, 1), latencyMs: 200, tokens: null },
      { itemId: 'i2', agentVersion: 1n, state: 'failed', scores: null, latencyMs: 50, tokens: null },
      { itemId: 'i1', agentVersion: 2n, state: 'pending', scores: null, latencyMs: null, tokens: null },
    ];
    const [one, two] = aggregateVersions({ versions: [1, 2], scorers: SCORERS, repeats: 2, results });
    expect(one).toMatchObject({
      agent_version: 1,
      runs: 4,
      scored: 3,
      failed: 1,
      latency_ms: { mean: 162.5, p50: 150 },
      tokens: { mean: 20 },
    });
    expect(one?.scorers[0]).toMatchObject({ name: 'exact', mean: 2 / 3, n: 3, null_count: 0 });
    // Items i1 (mean 0.5) and i2 (1): the interval is over two units.
    expect(one?.scorers[0]?.ci).toMatchObject({ unit: 'item', n: 2 });
    expect(one?.scorers[1]).toMatchObject({ name: 'has', mean: 1, n: 2, null_count: 1 });
    expect(two).toMatchObject({ runs: 1, scored: 0, latency_ms: { mean: null, p50: null, p95: null } });
    expect(two?.scorers[0]).toMatchObject({ mean: null, n: 0, ci: null });
    // exact: 1, 0, 1 (the failed run is not graded); has: null (in no bin), 1, 1.
    expect(one?.scorers[0]?.distribution).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    expect(one?.scorers[1]?.distribution).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    expect(two?.scorers[0]?.distribution).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('bins scores by tenths, each tenth’s lower edge in it and 1 in the last bin', () => {
    expect(distributionOf([0, 0.05, 0.1, 0.25, 0.3, 0.55, 0.7, 0.89, 0.9, 0.99, 1])).toEqual([
      2, 1, 1, 1, 0, 1, 0, 1, 1, 3,
    ]);
    // Every tenth written as a decimal is its own bin's, however 0.k × 10 rounds in floating point.
    const edges = Array.from({ length: 10 }, (_, index) => Number(`0.${index}`));
    expect(distributionOf(edges)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(distributionOf([])).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});

describe('the pairwise comparison', () => {
  const result = (
    itemId: string,
    position: number,
    agentVersion: number,
    fields: Partial<ComparedResult>,
  ): ComparedResult => ({
    itemId,
    position,
    agentVersion,
    repeat: 0,
    state: 'scored',
    reply: 'same',
    scores: scored(1, 1),
    ...fields,
  });

  it('says per item whether the candidate improved, regressed or held, and whether its reply changed', () => {
    const items = compareItems(SCORERS, 1, 2, [
      result('b', 1, 1, { scores: scored(1, 1) }),
      result('b', 1, 2, { scores: scored(0, 1), reply: 'other' }),
      result('a', 0, 1, { scores: scored(0, 0) }),
      result('a', 0, 2, { scores: scored(1, 0) }),
      result('c', 2, 1, {}),
      result('c', 2, 2, {}),
      // Only failures on the base: the candidate that answered is the better one.
      result('d', 3, 1, { state: 'failed', scores: null, reply: null }),
      result('d', 3, 2, { scores: scored(null, null) }),
      result('e', 4, 3, {}),
    ]);
    expect(items.map((item) => [item.item_id, item.verdict, item.reply_changed])).toEqual([
      ['a', 'improved', false],
      ['b', 'regressed', true],
      ['c', 'unchanged', false],
      ['d', 'improved', true],
    ]);
    expect(items[1]?.scores).toEqual([
      { name: 'exact', base: 1, candidate: 0, delta: -1 },
      { name: 'has', base: 1, candidate: 1, delta: 0 },
    ]);
    expect(items[3]).toMatchObject({ base: { runs: 1, failed: 1, reply: null }, candidate: { runs: 1, failed: 0 } });
    expect(countVerdicts(items)).toEqual({ items: 4, improved: 2, regressed: 1, unchanged: 1, reply_changed: 2 });
    const ids = (kept: typeof items) => kept.map((item) => item.item_id);
    expect(ids(filterItems(items, {}))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(filterItems(items, { verdict: 'improved' }))).toEqual(['a', 'd']);
    expect(ids(filterItems(items, { reply_changed: true }))).toEqual(['b', 'd']);
    expect(ids(filterItems(items, { reply_changed: false }))).toEqual(['a', 'c']);
    expect(ids(filterItems(items, { verdict: 'improved', reply_changed: true }))).toEqual(['d']);
  });
});

describe('CSV', () => {
  it('makes formulas inert and quotes what needs it', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    for (const start of ['+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(csvCell(start).includes(`'${start}`)).toBe(true);
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell(-1)).toBe('-1');
    expect(csvCell(null)).toBe('');
  });

  it('has one column per scorer, empty where a run was not graded or a score is null', () => {
    const evil: TScorer[] = [{ ...SCORERS[0], name: '=cmd' } as TScorer, SCORERS[1] as TScorer];
    expect(csvHeader(evil).endsWith(',score:=cmd,score:has')).toBe(true);
    const row: TExperimentResult = {
      item_id: '00000000-0000-4000-8000-000000000001',
      position: 0,
      agent_version: 2,
      repeat: 0,
      run_id: 'experiment:x',
      state: 'scored',
      reply: '=1+1',
      reply_truncated: false,
      tool_calls: [],
      latency_ms: 5,
      tokens: { input: 1, output: 2, total: 3 },
      scores: scored(1, null) as TExperimentResult['scores'],
      error: null,
      error_code: null,
      finished_at: null,
    };
    expect(csvRow(row, SCORERS)).toBe(
      "00000000-0000-4000-8000-000000000001,0,2,0,scored,experiment:x,'=1+1,false,[],5,1,2,3,,,1,",
    );
  });
});
