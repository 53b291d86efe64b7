// A guardrail's fields: its description and its rules, each a kind with its own fields, the position it
// checks and the action it takes. Errors show on the field they name, as the contracts' schema (the
// manager's rules) or the manager's 422 puts them: a bad regex on its line of the regexes.
import {
  GUARDRAIL_ACTIONS,
  GUARDRAIL_KINDS,
  GUARDRAIL_MATCH_MAX_CHARS,
  GUARDRAIL_POSITIONS,
  PII_ENTITIES,
  type TGuardrailKind,
  type TGuardrailRule,
  type TPiiEntity,
} from '@agentplane/contracts';
import type { ReactNode } from 'react';
import { type FieldValues, type UseFormReturn, useFieldArray } from 'react-hook-form';
import { errorAt, Field, optionalNumber, optionalText } from '../ui/field';
import { LinesField, linesError } from '../ui/list-fields';

const RULES = 'guardrail.rules';

const KIND_LABELS: Record<TGuardrailKind, string> = {
  pattern: 'Pattern: words, phrases or regular expressions',
  pii: 'PII: personal data',
  prompt_injection: 'Prompt injection',
  max_length: 'Maximum length',
  model_judge: 'Model judge: a model reads the text against a rubric',
};

const ENTITY_LABELS: Record<TPiiEntity, string> = {
  email: 'Email address',
  phone: 'Phone number',
  payment_card: 'Payment card (Luhn-checked)',
  iban: 'IBAN (checksum verified)',
  us_ssn: 'US social security number',
  uk_nino: 'UK national insurance number',
  es_dni: 'Spanish DNI (check letter verified)',
  api_key: 'API key (well-known shapes)',
};

type Shared = Pick<TGuardrailRule, 'name' | 'position' | 'action'>;

const SHARED: Shared = { name: '', position: 'output', action: 'block' };

/** A rule of `kind` keeping the name, position and action: another kind's own fields do not carry over. */
function blankRule(kind: TGuardrailKind, { name, position, action }: Shared = SHARED): Record<string, unknown> {
  const shared = { name, position, action, kind };
  switch (kind) {
    case 'pattern':
      return { ...shared, phrases: [], regexes: [], case_sensitive: false };
    case 'pii':
      return { ...shared, entities: [] };
    case 'prompt_injection':
      return shared;
    case 'max_length':
      return { ...shared, max_chars: 4000 };
    case 'model_judge':
      return { ...shared, rubric: '' };
  }
}

/** A new guardrail's body: one output pattern rule to fill in. */
export function blankGuardrail(): Record<string, unknown> {
  return { name: '', guardrail: { description: null, rules: [blankRule('pattern')] } };
}

/** The list's summary of a guardrail: how many rules, of which kinds. */
export function guardrailSummary(config: { rules: { kind: TGuardrailKind }[] }): string {
  const kinds = [...new Set(config.rules.map((rule) => rule.kind))].join(', ');
  return `${config.rules.length} rule${config.rules.length === 1 ? '' : 's'}: ${kinds}`;
}

type RuleProps = { form: UseFormReturn<FieldValues>; index: number };

function PatternFields({ form, index }: RuleProps) {
  const name = `${RULES}.${index}`;
  const errors = form.formState.errors;
  return (
    <>
      <LinesField
        control={form.control}
        name={`${name}.phrases`}
        label="Phrases"
        hint="Words or phrases, matched literally; one per line"
        error={linesError(errors, `${name}.phrases`)}
      />
      <LinesField
        control={form.control}
        name={`${name}.regexes`}
        label="Regular expressions"
        hint={`RE2 syntax, one per line; bound every repetition ({1,20}, not + or *): a match may be at most ${GUARDRAIL_MATCH_MAX_CHARS} characters`}
        error={linesError(errors, `${name}.regexes`)}
      />
      <div className="checkbox">
        <input id={`${name}-case`} type="checkbox" {...form.register(`${name}.case_sensitive`)} />
        <label htmlFor={`${name}-case`}>Case-sensitive</label>
      </div>
    </>
  );
}

function PiiFields({ form, index }: RuleProps) {
  const name = `${RULES}.${index}.entities`;
  const error = linesError(form.formState.errors, name);
  return (
    <fieldset>
      <legend>Personal data to find</legend>
      {PII_ENTITIES.map((entity) => (
        <div className="checkbox" key={entity}>
          <input id={`${name}-${entity}`} type="checkbox" value={entity} {...form.register(name)} />
          <label htmlFor={`${name}-${entity}`}>{ENTITY_LABELS[entity]}</label>
        </div>
      ))}
      {error && <span className="field-error">{error}</span>}
    </fieldset>
  );
}

function MaxLengthFields({ form, index }: RuleProps) {
  const name = `${RULES}.${index}.max_chars`;
  return (
    <Field label="Maximum characters" error={errorAt(form.formState.errors, name)} hint="Redact cuts what is over">
      <input type="number" {...form.register(name, optionalNumber)} />
    </Field>
  );
}

function ModelJudgeFields({ form, index }: RuleProps) {
  const name = `${RULES}.${index}`;
  const error = (field: string) => errorAt(form.formState.errors, `${name}.${field}`);
  return (
    <>
      <Field label="Rubric" error={error('rubric')} hint="What the judge refuses, in words">
        <textarea rows={3} {...form.register(`${name}.rubric`)} />
      </Field>
      <Field
        label="Judge model"
        error={error('model')}
        hint="A model name at the agent's own provider; empty: the agent's model. LLM agents only; on the output it can only log"
      >
        <input {...form.register(`${name}.model`, optionalText)} />
      </Field>
    </>
  );
}

const KIND_FIELDS: Record<TGuardrailKind, ((props: RuleProps) => ReactNode) | undefined> = {
  pattern: PatternFields,
  pii: PiiFields,
  prompt_injection: undefined,
  max_length: MaxLengthFields,
  model_judge: ModelJudgeFields,
};

function RuleFields(props: RuleProps & { onKind: (kind: TGuardrailKind) => void; onRemove?: () => void }) {
  const { form, index } = props;
  const name = `${RULES}.${index}`;
  const error = (field: string) => errorAt(form.formState.errors, `${name}.${field}`);
  const kind = form.watch(`${name}.kind`) as TGuardrailKind;
  const KindFields = KIND_FIELDS[kind];
  return (
    <fieldset>
      <legend>Rule {index + 1}</legend>
      <Field label="Rule name" error={error('name')} hint="A blocked run's error and the run record name it">
        <input {...form.register(`${name}.name`)} />
      </Field>
      <Field label="Kind" error={error('kind')}>
        <select
          {...form.register(`${name}.kind`, {
            onChange: (event) => props.onKind(event.target.value as TGuardrailKind),
          })}
        >
          {GUARDRAIL_KINDS.map((option) => (
            <option key={option} value={option}>
              {KIND_LABELS[option]}
            </option>
          ))}
        </select>
      </Field>
      {KindFields && <KindFields {...props} />}
      <Field label="Position" error={error('position')} hint="What the rule checks">
        <select {...form.register(`${name}.position`)}>
          {GUARDRAIL_POSITIONS.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
      </Field>
      <Field label="Action" error={error('action')}>
        <select {...form.register(`${name}.action`)}>
          {GUARDRAIL_ACTIONS.map((option) => (
            <option key={option}>{option}</option>
          ))}
        </select>
      </Field>
      {props.onRemove && (
        <button type="button" disabled={form.formState.disabled} onClick={props.onRemove}>
          Remove rule {index + 1}
        </button>
      )}
    </fieldset>
  );
}

export function GuardrailFields({ form }: { form: UseFormReturn<FieldValues> }) {
  const rules = useFieldArray({ control: form.control, name: RULES });
  const errors = form.formState.errors;
  const rulesError = errorAt(errors, RULES) ?? errorAt(errors, `${RULES}.root`);
  // A kind's fields replace the old kind's: the rule is rewritten, keeping what every kind shares.
  const changeKind = (index: number, kind: TGuardrailKind) =>
    rules.update(index, blankRule(kind, form.getValues(`${RULES}.${index}`) as Shared));
  return (
    <fieldset>
      <legend>Guardrail</legend>
      <Field label="Description" error={errorAt(errors, 'guardrail.description')}>
        <input {...form.register('guardrail.description', { setValueAs: (value) => (value ? value : null) })} />
      </Field>
      {rules.fields.map((rule, index) => (
        <RuleFields
          key={rule.id}
          form={form}
          index={index}
          onKind={(kind) => changeKind(index, kind)}
          {...(rules.fields.length > 1 ? { onRemove: () => rules.remove(index) } : {})}
        />
      ))}
      {rulesError && (
        <p role="alert" className="field-error">
          {rulesError}
        </p>
      )}
      <button type="button" disabled={form.formState.disabled} onClick={() => rules.append(blankRule('pattern'))}>
        Add rule
      </button>
    </fieldset>
  );
}
