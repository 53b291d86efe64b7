// Online scoring's settings as a form: whether it is on, the share of runs graded, which run sources are
// sampled, and the scorers (the same JSON editor an experiment's launch uses). The contracts' schema checks
// the body first; the API's answer puts what only it knows (a judge it cannot reach) on its field.
import { ONLINE_SCORING_SOURCES, ZOnlineScoringUpdate } from '@agentplane/contracts';
import { useId, useState } from 'react';
import { formatScorerList, parseScorerJson } from '../../scorers/scorer-list-text';
import { SCORER_TEMPLATES } from '../../scorers/scorer-templates';
import { ScorersEditor } from '../../scorers/scorers-editor';
import { Field } from '../../ui/field';
import { ProblemAlert } from '../../ui/problem-alert';
import { useBodyForm } from '../../ui/use-body-form';
import type { OnlineScoring, OnlineScoringBody } from './online-scoring-api';

type Source = (typeof ONLINE_SCORING_SOURCES)[number];

export function OnlineScoringForm(props: {
  settings: OnlineScoring;
  canWrite: boolean;
  onSubmit: (body: OnlineScoringBody) => Promise<unknown>;
}) {
  const id = useId();
  const { settings } = props;
  const [enabled, setEnabled] = useState(settings.enabled);
  const [rate, setRate] = useState(String(settings.sample_rate));
  const [sources, setSources] = useState<Source[]>(settings.sources);
  const [scorers, setScorers] = useState(() =>
    formatScorerList(settings.scorers.length > 0 ? settings.scorers : [SCORER_TEMPLATES.contains]),
  );
  const toggleSource = (source: Source) =>
    setSources((before) => (before.includes(source) ? before.filter((each) => each !== source) : [...before, source]));

  const { errors, problem, busy, onSubmit } = useBodyForm<OnlineScoringBody>({
    schema: ZOnlineScoringUpdate,
    body: () => ({
      enabled,
      sample_rate: rate.trim() === '' ? undefined : Number(rate),
      scorers: parseScorerJson(scorers),
      sources,
    }),
    send: props.onSubmit,
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Online scoring">
      <ProblemAlert problem={problem} />
      <div className="checkbox">
        <input
          id={`${id}-enabled`}
          type="checkbox"
          name="enabled"
          checked={enabled}
          disabled={!props.canWrite}
          onChange={(event) => setEnabled(event.target.checked)}
        />
        <label htmlFor={`${id}-enabled`}>Score a sample of this agent's runs</label>
      </div>
      <Field label="Sample rate" error={errors.sample_rate} hint="The share of ended runs graded, from 0 to 1">
        <input
          name="sample_rate"
          type="number"
          min={0}
          max={1}
          step={0.01}
          value={rate}
          disabled={!props.canWrite}
          onChange={(event) => setRate(event.target.value)}
        />
      </Field>
      <fieldset>
        <legend>Run sources sampled</legend>
        {ONLINE_SCORING_SOURCES.map((source) => (
          <div className="checkbox" key={source}>
            <input
              id={`${id}-${source}`}
              type="checkbox"
              name="sources"
              checked={sources.includes(source)}
              disabled={!props.canWrite}
              onChange={() => toggleSource(source)}
            />
            <label htmlFor={`${id}-${source}`}>{source}</label>
          </div>
        ))}
        {errors.sources && <span className="field-error">{errors.sources}</span>}
      </fieldset>
      <ScorersEditor text={scorers} onChange={setScorers} error={errors.scorers} disabled={!props.canWrite} />
      {props.canWrite && (
        <button type="submit" disabled={busy}>
          Save online scoring
        </button>
      )}
    </form>
  );
}
