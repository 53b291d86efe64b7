// How each scorer's scores spread, per version: histograms of the scored runs' scores (read a large
// page at a time, up to a bound), drawn once the experiment has some. Read again as its runs end.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { problemOf } from '../api/api-problem';
import { ProblemAlert } from '../ui/problem-alert';
import { type Experiment, type ExperimentResult, experimentKeys, listScoredResults } from './experiment-api';
import { finalRuns } from './experiment-status';
import type { ScorerHistogram } from './score-charts';
import { histogramRows } from './score-histogram';

const ScoreCharts = lazy(() => import('./score-charts'));

/** Runs the charts are drawn from at most: beyond this, the aggregates table still counts every run. */
const MAX_CHARTED_RUNS = 20_000;

function histograms(experiment: Experiment, results: ExperimentResult[]): ScorerHistogram[] {
  return experiment.scorers.map((scorer, index) => {
    const byVersion = new Map<number, (number | null)[]>(experiment.agent_versions.map((version) => [version, []]));
    for (const result of results) {
      const score = result.scores?.[index];
      if (score?.name === scorer.name) byVersion.get(result.agent_version)?.push(score.score);
    }
    return { scorer: scorer.name, rows: histogramRows(byVersion) };
  });
}

export function ScoreDistributions({ agentId, experiment }: { agentId: string; experiment: Experiment }) {
  const scored = useQuery({
    queryKey: experimentKeys.scores(agentId, experiment.id, finalRuns(experiment.progress)),
    queryFn: () => listScoredResults(agentId, experiment.id, MAX_CHARTED_RUNS),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="distributions-heading">
      <h3 id="distributions-heading">Score distributions</h3>
      {scored.error && <ProblemAlert problem={problemOf(scored.error)} />}
      {!scored.data && !scored.error && <p aria-busy="true">Loading…</p>}
      {scored.data?.total === 0 && <p>No run is scored yet.</p>}
      {scored.data && scored.data.total > 0 && (
        <>
          <Suspense fallback={<p aria-busy="true">Loading the charts…</p>}>
            <ScoreCharts
              histograms={histograms(experiment, scored.data.results)}
              versions={experiment.agent_versions}
            />
          </Suspense>
          {scored.data.total > scored.data.results.length && (
            <p className="note">
              Drawn from the first {scored.data.results.length} of {scored.data.total} scored runs.
            </p>
          )}
        </>
      )}
    </section>
  );
}
