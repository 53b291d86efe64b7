// How each scorer's scores spread, per version: histograms of the distributions the experiment's
// aggregates carry (so they follow its polling as runs end), drawn once some run is scored.
import { lazy, Suspense } from 'react';
import type { ExperimentDetail } from './experiment-api';
import type { ScorerHistogram } from './score-charts';
import { histogramRows } from './score-histogram';

const ScoreCharts = lazy(() => import('./score-charts'));

function histograms(experiment: ExperimentDetail): ScorerHistogram[] {
  return experiment.scorers.map((scorer, index) => ({
    scorer: scorer.name,
    rows: histogramRows(experiment.aggregates, index),
  }));
}

export function ScoreDistributions({ experiment }: { experiment: ExperimentDetail }) {
  const scored = experiment.aggregates.some((aggregate) => aggregate.scored > 0);
  return (
    <section aria-labelledby="distributions-heading">
      <h3 id="distributions-heading">Score distributions</h3>
      {scored ? (
        <Suspense fallback={<p aria-busy="true">Loading the charts…</p>}>
          <ScoreCharts histograms={histograms(experiment)} versions={experiment.agent_versions} />
        </Suspense>
      ) : (
        <p>No run is scored yet.</p>
      )}
    </section>
  );
}
