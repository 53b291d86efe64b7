// One experiment: its state (read again while it runs), its figures per version and scorer, the score
// distributions, the comparison of two of its versions, and its export. Under the Experiments tab's URL,
// so the tab stays selected.
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { useAgentOfPage } from '../agents/agent-of-page';
import { problemOf } from '../api/api-problem';
import { ProblemAlert } from '../ui/problem-alert';
import { AggregatesTable, VersionFiguresTable } from './aggregates-table';
import { ComparisonPanel } from './comparison-panel';
import { experimentKeys, getExperiment } from './experiment-api';
import { ExperimentProgress, ExperimentStatus, isActive, versionsLabel } from './experiment-status';
import { ExportButtons } from './export-buttons';
import { ScoreDistributions } from './score-distributions';

const POLL_MS = 2000;

export function ExperimentPage() {
  const agent = useAgentOfPage();
  const { experimentId = '' } = useParams();
  const query = useQuery({
    queryKey: experimentKeys.one(agent.id, experimentId),
    queryFn: () => getExperiment(agent.id, experimentId),
    refetchInterval: (current) => (current.state.data && !isActive(current.state.data) ? false : POLL_MS),
  });
  if (query.error) return <ProblemAlert problem={problemOf(query.error)} />;
  const experiment = query.data;
  if (!experiment) return <p aria-busy="true">Loading…</p>;
  return (
    <section aria-labelledby="experiment-heading">
      <p>
        <Link to={`/agents/${agent.id}/experiments`}>All experiments</Link>
      </p>
      <h2 id="experiment-heading">{experiment.name}</h2>
      <dl className="figures">
        <dt>Status</dt>
        <dd>
          <ExperimentStatus experiment={experiment} />
        </dd>
        <dt>Progress</dt>
        <dd>
          <ExperimentProgress experiment={experiment} />
        </dd>
        <dt>Dataset version</dt>
        <dd>
          {experiment.dataset_id ? (
            <Link to={`/datasets/${experiment.dataset_id}`}>version {experiment.dataset_version}</Link>
          ) : (
            `version ${experiment.dataset_version} (deleted)`
          )}
          , {experiment.item_count} items
        </dd>
        <dt>Versions</dt>
        <dd>{versionsLabel(experiment.agent_versions)}</dd>
        <dt>Repeats</dt>
        <dd>{experiment.repeats}</dd>
      </dl>
      <ExportButtons agentId={agent.id} experiment={experiment} />
      <AggregatesTable aggregates={experiment.aggregates} />
      <VersionFiguresTable aggregates={experiment.aggregates} />
      <ScoreDistributions experiment={experiment} />
      {experiment.agent_versions.length > 1 && <ComparisonPanel agentId={agent.id} experiment={experiment} />}
    </section>
  );
}
