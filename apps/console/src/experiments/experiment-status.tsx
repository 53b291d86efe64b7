// An experiment's state as its list and its page show it: the status (with why, when it failed) and how
// many of its runs are final, as a progress bar assistive technology reads as such.
import type { Experiment } from './experiment-api';

const ACTIVE: readonly Experiment['status'][] = ['running', 'cancelling'];

/** Whether the experiment may still change: its pages read it again while it does. */
export const isActive = (experiment: Pick<Experiment, 'status'>) => ACTIVE.includes(experiment.status);

export function finalRuns(progress: Experiment['progress']): number {
  return progress.scored + progress.failed + progress.cancelled;
}

export function ExperimentProgress({ experiment }: { experiment: Experiment }) {
  const done = finalRuns(experiment.progress);
  return (
    <span className="experiment-progress">
      <progress max={Math.max(experiment.run_count, 1)} value={done} aria-label={`Runs of ${experiment.name} done`} />{' '}
      {done}/{experiment.run_count}
      {experiment.progress.failed > 0 && <span className="note"> ({experiment.progress.failed} failed)</span>}
    </span>
  );
}

export function ExperimentStatus({ experiment }: { experiment: Experiment }) {
  return (
    <>
      {experiment.status}
      {experiment.status_reason && <span className="note">: {experiment.status_reason}</span>}
    </>
  );
}

export const versionsLabel = (versions: readonly number[]) => versions.map((version) => `v${version}`).join(', ');
