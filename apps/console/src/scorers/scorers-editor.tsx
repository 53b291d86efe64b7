// A scorer list edited as JSON text, with a template per scorer kind to insert and a test on a sample.
// The text is the parent's (it reads it on submit with readScorerList); what is wrong shows under it.
import { SCORER_KINDS, type TScorer, type TScorerKind } from '@agentplane/contracts';
import { useId, useState } from 'react';
import { formatScorerList, looseScorers, readScorerList } from './scorer-list-text';
import { templateFor } from './scorer-templates';
import { ScorerTestPanel } from './scorer-test-panel';

export function ScorersEditor(props: {
  text: string;
  onChange: (text: string) => void;
  /** A problem the parent found on submit (or the server's, at `scorers`). */
  error?: string | undefined;
  disabled?: boolean;
}) {
  const id = useId();
  const [kind, setKind] = useState<TScorerKind>('exact_match');
  const [ownError, setOwnError] = useState<string>();
  const error = ownError ?? props.error;
  const insert = () => {
    const scorers = looseScorers(props.text);
    props.onChange(formatScorerList([...scorers, templateFor(kind, scorers)]));
    setOwnError(undefined);
  };
  // The test reads the text as a submit would, and says here what stops it.
  const readForTest = (): TScorer[] | undefined => {
    const reading = readScorerList(props.text);
    setOwnError('problem' in reading ? reading.problem : undefined);
    return 'scorers' in reading ? reading.scorers : undefined;
  };
  return (
    <div className="field">
      <label htmlFor={`${id}-text`}>Scorers (JSON)</label>
      <textarea
        id={`${id}-text`}
        name="scorers"
        rows={12}
        spellCheck={false}
        value={props.text}
        disabled={props.disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : `${id}-hint`}
        onChange={(event) => {
          setOwnError(undefined);
          props.onChange(event.target.value);
        }}
      />
      <small id={`${id}-hint`} className="hint">
        A JSON array of scorers, each with a unique name and a kind
      </small>
      {error && (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
      {!props.disabled && (
        <>
          <div className="actions">
            <label htmlFor={`${id}-kind`}>Scorer kind</label>
            <select id={`${id}-kind`} value={kind} onChange={(event) => setKind(event.target.value as TScorerKind)}>
              {SCORER_KINDS.map((each) => (
                <option key={each} value={each}>
                  {each}
                </option>
              ))}
            </select>
            <button type="button" onClick={insert}>
              Insert template
            </button>
          </div>
          <ScorerTestPanel read={readForTest} />
        </>
      )}
    </div>
  );
}
