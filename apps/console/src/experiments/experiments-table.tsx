// The agent's experiments, newest first, a page at a time: each links to its page, shows its progress,
// and for members can be cancelled while it runs and deleted once it has ended. The list is read again
// every few seconds, so running experiments move on their own.
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { datasetKeys, listDatasets } from '../datasets/dataset-api';
import { ConfirmDelete } from '../ui/confirm-delete';
import { EmptyState } from '../ui/empty-state';
import { type Column, PagedTable } from '../ui/paged-table';
import { type Experiment, experimentKeys, listExperiments } from './experiment-api';
import { ExperimentProgress, ExperimentStatus, isActive, versionsLabel } from './experiment-status';

const POLL_MS = 3000;

export type ExperimentActions = {
  canWrite: boolean;
  busy: boolean;
  onCancel: (experiment: Experiment) => void;
  onDelete: (experiment: Experiment) => void;
};

function Actions({ experiment, actions }: { experiment: Experiment; actions: ExperimentActions }) {
  if (experiment.status === 'running') {
    return (
      <button type="button" disabled={actions.busy} onClick={() => actions.onCancel(experiment)}>
        Cancel<span className="visually-hidden"> {experiment.name}</span>
      </button>
    );
  }
  if (isActive(experiment)) return null;
  return (
    <ConfirmDelete
      what={`experiment ${experiment.name}`}
      disabled={actions.busy}
      onConfirm={() => actions.onDelete(experiment)}
    />
  );
}

export function ExperimentsTable({ agentId, actions }: { agentId: string; actions: ExperimentActions }) {
  const datasets = useQuery({ queryKey: datasetKeys.list(), queryFn: () => listDatasets(0, 1000) });
  const datasetName = (experiment: Experiment) =>
    datasets.data?.items.find((dataset) => dataset.id === experiment.dataset_id)?.name ??
    (experiment.dataset_id === null ? 'deleted dataset' : 'dataset');
  const columns: Column<Experiment>[] = [
    {
      header: 'Name',
      cell: (experiment) => <Link to={`/agents/${agentId}/experiments/${experiment.id}`}>{experiment.name}</Link>,
    },
    { header: 'Status', cell: (experiment) => <ExperimentStatus experiment={experiment} /> },
    { header: 'Progress', cell: (experiment) => <ExperimentProgress experiment={experiment} /> },
    { header: 'Dataset', cell: (experiment) => `${datasetName(experiment)}@${experiment.dataset_version}` },
    { header: 'Versions', cell: (experiment) => versionsLabel(experiment.agent_versions) },
    { header: 'Created', cell: (experiment) => new Date(experiment.created_at).toLocaleString() },
  ];
  if (actions.canWrite) {
    columns.push({ header: 'Actions', cell: (experiment) => <Actions experiment={experiment} actions={actions} /> });
  }
  return (
    <PagedTable
      caption="Experiments"
      queryKey={experimentKeys.list(agentId)}
      fetchPage={(offset, limit) => listExperiments(agentId, offset, limit)}
      columns={columns}
      refetchIntervalMs={POLL_MS}
      empty={
        <EmptyState title="No experiments yet">
          <p>An experiment runs a dataset's items on some of the agent's versions and grades each reply.</p>
        </EmptyState>
      }
    />
  );
}
