// Launching an experiment: the dataset and its version, the agent versions to compare, the scorers
// (JSON, with templates and a test), repeats and concurrency. The contracts' ZExperimentCreate checks the
// body first; what only the server knows (a pruned version, too many runs) comes back on its field.
import {
  EXPERIMENT_CONCURRENCY_DEFAULT,
  EXPERIMENT_CONCURRENCY_MAX,
  EXPERIMENT_REPEATS_MAX,
  ZExperimentCreate,
} from '@agentplane/contracts';
import { useState } from 'react';
import { formatScorerList, parseScorerJson } from '../scorers/scorer-list-text';
import { SCORER_TEMPLATES } from '../scorers/scorer-templates';
import { ScorersEditor } from '../scorers/scorers-editor';
import { Field } from '../ui/field';
import { ProblemAlert } from '../ui/problem-alert';
import { useBodyForm } from '../ui/use-body-form';
import { type DatasetChoice, DatasetChoiceFields } from './dataset-choice';
import type { ExperimentBody } from './experiment-api';
import { VersionCheckboxes } from './version-checkboxes';

const numberOr = (text: string) => (text.trim() === '' ? undefined : Number(text));

export function ExperimentForm(props: {
  agentId: string;
  onSubmit: (body: ExperimentBody) => Promise<unknown>;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [dataset, setDataset] = useState<DatasetChoice>({ dataset: '', version: undefined });
  const [versions, setVersions] = useState<number[]>([]);
  const [scorers, setScorers] = useState(() => formatScorerList([SCORER_TEMPLATES.exact_match]));
  const [repeats, setRepeats] = useState('1');
  const [concurrency, setConcurrency] = useState(String(EXPERIMENT_CONCURRENCY_DEFAULT));
  const { errors, problem, busy, onSubmit } = useBodyForm<ExperimentBody>({
    schema: ZExperimentCreate,
    body: () => ({
      ...(name.trim() === '' ? {} : { name: name.trim() }),
      dataset: dataset.dataset,
      ...(dataset.version === undefined ? {} : { dataset_version: dataset.version }),
      agent_versions: versions,
      scorers: parseScorerJson(scorers),
      repeats: numberOr(repeats),
      concurrency: numberOr(concurrency),
    }),
    send: props.onSubmit,
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="New experiment">
      <ProblemAlert problem={problem} />
      <Field label="Name" error={errors.name} hint="Optional: the dataset and versions name it otherwise">
        <input name="name" value={name} onChange={(event) => setName(event.target.value)} />
      </Field>
      <DatasetChoiceFields value={dataset} onChange={setDataset} errors={errors} />
      <VersionCheckboxes
        agentId={props.agentId}
        value={versions}
        onChange={setVersions}
        error={errors.agent_versions}
      />
      <ScorersEditor text={scorers} onChange={setScorers} error={errors.scorers} />
      <Field
        label="Repeats"
        error={errors.repeats}
        hint={`Runs of each item on each version, 1 to ${EXPERIMENT_REPEATS_MAX}`}
      >
        <input
          name="repeats"
          type="number"
          min={1}
          max={EXPERIMENT_REPEATS_MAX}
          value={repeats}
          onChange={(event) => setRepeats(event.target.value)}
        />
      </Field>
      <Field label="Concurrency" error={errors.concurrency} hint="Runs in flight at once">
        <input
          name="concurrency"
          type="number"
          min={1}
          max={EXPERIMENT_CONCURRENCY_MAX}
          value={concurrency}
          onChange={(event) => setConcurrency(event.target.value)}
        />
      </Field>
      <div className="actions">
        <button type="submit" disabled={busy}>
          Launch experiment
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
